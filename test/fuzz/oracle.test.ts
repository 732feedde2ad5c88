/** The fuzz oracle and value writers themselves: each rule flags the answers it should, and only those. */
import { describe, expect, it } from 'vitest';
import type { FuzzCase } from './cases.js';
import { Deep, expandDeep, toJsonText } from './hostile.js';
import { envelopeProblem, judge, MAX_CASE_MS } from './oracle.js';

const endpoint = { name: 'POST /search', method: 'POST', path: '/search', pathParams: [], query: [], body: {}, simpleErrors: false }; // prettier-ignore
const monitors = { ...endpoint, name: 'POST /monitors', path: '/monitors', simpleErrors: true };
const caseWith = (value: unknown, e = endpoint): FuzzCase => ({ endpoint: e, cls: 'valid', url: e.path, body: { cls: 'valid', value } }); // prettier-ignore
const envelope = (tag: string) => ({ requestId: 'r1', error: 'message', tag });

describe('fuzz oracle', () => {
  it('flags every 5xx (a failed upstream included), a slow answer and no answer', () => {
    expect(judge(caseWith({ query: 'q' }), 500, envelope('INTERNAL_ERROR'), 5)).toMatch(/answered 500/);
    for (const status of [501, 502, 503, 504, 599]) {
      expect(judge(caseWith({ url: 'https://a.fuzz.invalid/' }), status, envelope('FETCH_DOCUMENT_ERROR'), 5)).toMatch(new RegExp(`answered ${status}`)); // prettier-ignore
    }
    expect(judge(caseWith({ query: 'q' }), 200, {}, MAX_CASE_MS + 1)).toMatch(/took 1001 ms \(limit 1000\)/);
    expect(judge(caseWith({ query: 'q' }), 200, {}, MAX_CASE_MS)).toBeUndefined();
    expect(judge(caseWith({ url: 'https://a.fuzz.invalid/' }), 400, envelope('FETCH_DOCUMENT_ERROR'), 5)).toBeUndefined(); // prettier-ignore
  });

  it('holds 4xx answers to the envelope of their route', () => {
    expect(judge(caseWith({}), 400, envelope('INVALID_REQUEST_BODY'), 5)).toBeUndefined();
    expect(envelopeProblem({ error: 'x', tag: 'INVALID_REQUEST_BODY' }, false, 400)).toBe('no requestId');
    expect(envelopeProblem(envelope('NOT_A_TAG'), false, 400)).toMatch(/unknown tag/);
    expect(envelopeProblem(envelope('NOT_FOUND'), false, 400)).toMatch(/with status 400/);
    expect(judge(caseWith({}, monitors), 400, { error: 'x' }, 5)).toBeUndefined();
    expect(judge(caseWith({}, monitors), 400, envelope('INVALID_REQUEST_BODY'), 5)).toMatch(/\{error\} only/);
    expect(envelopeProblem('Bad Request', false, 400)).toBe('not a JSON object');
  });

  it('writes nesting deeper than JSON.stringify can', () => {
    const text = toJsonText({ a: [1, new Deep(20_000, 'array')], b: 'x' });
    expect(text.startsWith('{"a":[1,[[[')).toBe(true);
    expect(text.length).toBeGreaterThan(40_000);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(JSON.stringify(expandDeep({ m: new Deep(3, 'object') }, 2))).toBe('{"m":{"a":{"a":"bottom"}}}');
  });
});
