import { describe, expect, it } from 'vitest';
import { ERROR_TAGS, INVALID_INPUT_TAGS, PAYMENT_TAGS, ServiceError } from '../../../src/errors.js';
import { HttpError, bodyOf, headersOf } from '../../../src/http/http-error.js';
import { TAG_STATUS, statusOf } from '../../../src/http/status.js';

const tagsWith = (...statuses: number[]) =>
  Object.entries(TAG_STATUS)
    .filter(([, status]) => statuses.includes(status))
    .map(([tag]) => tag)
    .sort();

describe('the HTTP status table', () => {
  it('gives every tag a status, and unknown tags 500', () => {
    expect(Object.keys(TAG_STATUS).sort()).toEqual([...ERROR_TAGS].sort());
    expect(statusOf('SOMETHING_NEW')).toBe(500);
  });

  it('agrees with the core’s tag groups: payment refusals are the 402s, bad input the 400s and 422s', () => {
    expect([...PAYMENT_TAGS].sort()).toEqual(tagsWith(402));
    expect([...INVALID_INPUT_TAGS].sort()).toEqual(tagsWith(400, 422));
  });

  it('carries headers and envelope fields only on the door’s own errors', () => {
    const plain = new ServiceError('METHOD_NOT_ALLOWED', 'no');
    const door = new HttpError('METHOD_NOT_ALLOWED', 'no', { headers: { allow: 'POST' }, body: { x: 1 } });
    expect(door).toBeInstanceOf(ServiceError);
    expect([headersOf(plain), bodyOf(plain)]).toEqual([{}, {}]);
    expect([headersOf(door), bodyOf(door)]).toEqual([{ allow: 'POST' }, { x: 1 }]);
  });
});
