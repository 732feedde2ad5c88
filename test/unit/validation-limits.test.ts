/**
 * The body limits (src/lib/json-shape.ts, BODY_LIMITS): the text pass and the value pass agree, each limit
 * holds at its exact boundary, strings with brackets, quotes, escapes and unicode are read as strings,
 * and the refusal names the limit and the field; unknown keys are listed five at a time, the rest counted.
 */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/errors.js';
import { shapeBreachInText, shapeBreachInValue, type ShapeLimits } from '../../src/lib/json-shape.js';
import { SearchRequest } from '../../src/schemas/search.schema.js';
import { BODY_LIMITS, bodyOverLimit, parseOrThrow } from '../../src/ops/validation.js';

const { depth: DEPTH, keys: KEYS, values: VALUES, containers: CONTAINERS } = BODY_LIMITS;

/** The breach both passes find in `text` (asserting they agree). */
function breachOf(text: string, limits: ShapeLimits = BODY_LIMITS) {
  const inText = shapeBreachInText(text, limits);
  expect(shapeBreachInValue(JSON.parse(text), limits)).toEqual(inText);
  return inText;
}

const objectOf = (n: number, prefix = 'k') => `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}":1`).join(',')}}`;
const arrayOf = (n: number, item = '1') => `[${Array(n).fill(item).join(',')}]`;
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('the body limits, at their boundaries', () => {
  it('are the documented ones', () => {
    expect(BODY_LIMITS).toEqual({ depth: 64, keys: 10_000, values: 200_000, containers: 20_000 });
  });

  it('depth: 64 levels pass, 65 do not', () => {
    expect(breachOf(nested(DEPTH))).toBeUndefined();
    expect(breachOf(nested(DEPTH + 1))).toEqual({ limit: 'depth', path: Array(DEPTH).fill(0) });
  });

  it('keys: 10,000 in one object pass, 10,001 do not (named at the object)', () => {
    expect(breachOf(`{"a":{"b":${objectOf(KEYS)}}}`)).toBeUndefined();
    expect(breachOf(`{"a":{"b":${objectOf(KEYS + 1)}}}`)).toEqual({ limit: 'keys', path: ['a', 'b'] });
    expect(breachOf(objectOf(KEYS + 1))).toEqual({ limit: 'keys', path: [] });
  });

  it('keys are counted per object: two objects of 10,000 pass', () => {
    expect(breachOf(`{"a":${objectOf(KEYS - 1)},"b":${objectOf(KEYS - 1)}}`)).toBeUndefined();
  });

  it('values: 200,000 in all pass (the root is one), 200,001 do not', () => {
    // root + "a" + 199,998 items = 200,000
    expect(breachOf(`{"a":${arrayOf(VALUES - 2)}}`)).toBeUndefined();
    expect(breachOf(`{"a":${arrayOf(VALUES - 1)}}`)).toEqual({ limit: 'values', path: ['a'] });
  });

  it('values count keys and items alike, across containers', () => {
    const items = VALUES - 3 - KEYS; // root + "a" + its keys + "b" + its items = VALUES
    expect(breachOf(`{"a":${objectOf(KEYS)},"b":${arrayOf(items)}}`)).toBeUndefined();
    expect(breachOf(`{"a":${objectOf(KEYS)},"b":${arrayOf(items + 1)}}`)).toEqual({ limit: 'values', path: ['b'] });
  });

  it('containers: 20,000 arrays and objects pass (the root is one), 20,001 do not', () => {
    expect(breachOf(`{"a":${arrayOf(CONTAINERS - 2, '[]')}}`)).toBeUndefined();
    expect(breachOf(`{"a":${arrayOf(CONTAINERS - 1, '[]')}}`)).toEqual({ limit: 'containers', path: ['a'] });
  });

  it('empty arrays and objects hold no values; whitespace does not count', () => {
    const limits = { depth: 3, keys: 1, values: 3, containers: 10 };
    expect(breachOf('[ [ ] , { } ,\n\t[\r] ]', { ...limits, values: 4 })).toBeUndefined();
    expect(breachOf('[ [ ] , { } ,\n\t[\r] ]', limits)).toEqual({ limit: 'values', path: [] });
    expect(breachOf('{ "a" : 1 , "b" : 2 }', limits)).toEqual({ limit: 'keys', path: [] });
  });
});

describe('strings in the text pass', () => {
  const tight = { depth: 2, keys: 2, values: 4, containers: 2 };

  it('skip brackets, colons and commas inside strings, keys or values', () => {
    expect(breachOf('{"[{:,}]":"{[,:,:]}","b":["]]]],,,{{{"]}', tight)).toBeUndefined();
  });

  it('end only at an unescaped quote (escaped quotes and backslashes before them)', () => {
    expect(breachOf(String.raw`{"a\"[[[":"\\","b\\\"{{":["x\\\\"]}`, tight)).toBeUndefined();
    expect(breachOf(String.raw`{"a\\":[[1]]}`, tight)).toEqual({ limit: 'depth', path: ['a\\', 0] });
  });

  it('name unicode and escaped keys as decoded', () => {
    const text = '{"\\u00e9t\\u00e9":{"\u202Ertl\\u0000":{"\uD83D\uDC1F":[1]}}}';
    expect(breachOf(text, { ...tight, depth: 3, values: 10, containers: 10 })).toEqual({ limit: 'depth', path: ['été', '\u202Ertl\u0000', '🐟'] }); // prettier-ignore
  });

  it('read an unterminated string to the end of the text without a breach', () => {
    expect(shapeBreachInText('{"a":"[[[[[[', tight)).toBeUndefined();
  });
});

describe('the refusal', () => {
  const messageOf = (text: string) => bodyOverLimit(shapeBreachInText(text, BODY_LIMITS)!);

  it('names the limit, its number and the field', () => {
    const keys = messageOf(`{"contents":{"summary":${objectOf(KEYS + 1)}}}`);
    expect(keys).toBeInstanceOf(ServiceError);
    expect(keys.tag).toBe('INVALID_REQUEST_BODY');
    expect(keys.message).toBe('Invalid request body: contents.summary: has more than 10000 keys in one object (at contents.summary), the limit for request bodies'); // prettier-ignore
    expect(keys.field).toBe('contents.summary');
    expect(messageOf(`{"urls":${arrayOf(VALUES)}}`).message).toMatch(/^Invalid request body: urls: holds more than 200000 values in all/); // prettier-ignore
    expect(messageOf(`{"urls":${arrayOf(CONTAINERS, '{}')}}`).message).toMatch(/^Invalid request body: urls: holds more than 20000 objects and arrays in all/); // prettier-ignore
    expect(messageOf(`{"x":${nested(100)}}`).message).toMatch(/^Invalid request body: x: nests deeper than 64 levels \(at x\[0\]/); // prettier-ignore
    expect(messageOf(objectOf(KEYS + 1)).message).toMatch(/^Invalid request body: has more than 10000 keys in one object \(at the root\)/); // prettier-ignore
  });

  it('is given for parsed arguments too (MCP), before the schema reads them', () => {
    const args = JSON.parse(`{"query":"x","contents":{"text":${objectOf(KEYS + 1)}}}`) as unknown;
    expect(() => parseOrThrow(SearchRequest, args, 'body')).toThrow(/contents\.text: has more than 10000 keys in one object/); // prettier-ignore
  });
});

describe('unknown keys in a message', () => {
  const refusal = (value: unknown) => {
    try {
      parseOrThrow(SearchRequest, value, 'body');
    } catch (err) {
      return err as ServiceError;
    }
    throw new Error('accepted');
  };

  it('lists the first five with their hints and counts the rest, across objects', () => {
    const many = Object.fromEntries(Array.from({ length: KEYS - 2 }, (_, i) => [`k${i}`, 1]));
    const err = refusal({ query: 'x', ...many, contents: { text: { ...many } } });
    const listed = [0, 1, 2, 3, 4].map((i) => `contents.text.k${i}: unknown field`).join('; ');
    expect(err.message).toBe(`Invalid request body: ${listed}; and ${2 * (KEYS - 2) - 5} more`);
    expect(err.field).toBe('contents.text.k0');
  });

  it('keeps each key’s own hint, keys that look like hints included', () => {
    const err = refusal({ query: 'x', 'unknown field; b': 1, b: 2, contents: 'x'.repeat(3), livecrawlTimeout: 1 });
    expect(err.message).toBe('Invalid request body: contents: must be of type object (got string); unknown field; b: unknown field; b: unknown field; livecrawlTimeout: content options must be nested under "contents" on /search'); // prettier-ignore
  });
});
