/** The fuzz oracle and value writers themselves: each rule flags the answers it should, and only those. */
import { describe, expect, it } from 'vitest';
import type { FuzzCase } from './cases.js';
import { Deep, expandDeep, toJsonText } from './hostile.js';
import {
  envelopeProblem,
  judge,
  leakProblem,
  MAX_CASE_MS,
  rpcAnswerProblem,
  slowness,
  type Outcome,
} from './oracle.js';
import { fuzzEndpoint, type Target } from './runner.js';

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

  it('fails a slow answer only when it is slow again, sent alone', async () => {
    /** A target whose answers take the given times in turn, and how many cases it had in flight at most. */
    const timed = (...times: number[]) => {
      let inFlight = 0;
      const target: Target & { sent: number; alone: boolean[] } = {
        sent: 0,
        alone: [],
        async send(): Promise<Outcome> {
          target.alone.push(inFlight === 0);
          inFlight++;
          await Promise.resolve();
          inFlight--;
          const ms = times[target.sent++] ?? 5;
          return { status: 200, ms, violation: slowness(ms) };
        },
        health: async () => undefined,
      };
      return target;
    };
    const run = (target: Target) => fuzzEndpoint(target, endpoint, { type: 'object', properties: { query: { type: 'string' } } }, ['valid'], { seed: 1, numRuns: 8, concurrency: 4 }); // prettier-ignore

    const stretched = timed(5, MAX_CASE_MS + 500); // the warm-up call, then one case a busy machine stretched
    const once = await run(stretched);
    expect(once.failure).toBeUndefined();
    expect(once.resent).toBe(1);
    expect(stretched.sent).toBe(10); // warm-up, 8 cases, the slow one again
    expect(stretched.alone.at(-1)).toBe(true);

    const slowPath = timed(5, MAX_CASE_MS + 500, 5, 5, 5, 5, 5, 5, 5, MAX_CASE_MS + 900);
    const twice = await run(slowPath);
    expect(twice.failure).toMatch(/took 1900 ms .*again when sent alone/);
    expect(twice.violations).toBe(1);
  });

  it('holds raw /mcp answers to JSON-RPC: clear errors, no 5xx, no result where a refusal is due', () => {
    const json = 'application/json';
    const error = (data?: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Task not found: t', ...(data ? { data } : {}) } }); // prettier-ignore
    const result = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { taskId: 't', status: 'working' } });
    expect(rpcAnswerProblem(200, json, result, 'any')).toBeUndefined();
    expect(rpcAnswerProblem(200, json, error(), 'refusal')).toBeUndefined();
    expect(rpcAnswerProblem(200, json, result, 'refusal')).toMatch(/a result where a refusal was due/);
    expect(rpcAnswerProblem(200, 'text/event-stream', `event: message\ndata: ${result}\n\n`, 'refusal')).toMatch(/refusal was due/); // prettier-ignore
    expect(rpcAnswerProblem(200, json, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 'x', message: '' } }), 'any')).toMatch(/integer code/); // prettier-ignore
    expect(rpcAnswerProblem(200, json, 'Internal', 'any')).toMatch(/not JSON-RPC/);
    expect(
      rpcAnswerProblem(400, json, error({ requestId: 'r1', tag: 'INVALID_REQUEST_BODY' }), 'refusal'),
    ).toBeUndefined();
    expect(rpcAnswerProblem(400, json, error(), 'refusal')).toMatch(/without the request id and a known tag/);
    expect(rpcAnswerProblem(413, json, JSON.stringify(envelope('PAYLOAD_TOO_LARGE')), 'any')).toBeUndefined();
    expect(rpcAnswerProblem(400, json, JSON.stringify(envelope('PAYLOAD_TOO_LARGE')), 'any')).toMatch(
      /with status 400/,
    );
    expect(rpcAnswerProblem(500, json, error({ requestId: 'r1', tag: 'INTERNAL_ERROR' }), 'any')).toMatch(
      /answered 500/,
    );
    expect(rpcAnswerProblem(202, 'text/plain', '', 'any')).toBeUndefined();
    expect(rpcAnswerProblem(202, 'text/plain', '', 'refusal')).toMatch(/taken \(202\)/);
  });

  it('flags an answer that shows a secret, a stack trace or the server’s paths', () => {
    const key = 'trawl_0123456789abcdef';
    expect(leakProblem('INVALID_REQUEST_BODY: query: expected a string', [key])).toBeUndefined();
    expect(leakProblem(`the key ${key} is wrong`, [key])).toMatch(/a secret \(trawl_…\)/);
    expect(leakProblem(JSON.stringify({ message: new Error('boom').stack }), [])).toMatch(/stack trace/);
    expect(leakProblem(`cannot open ${process.cwd()}/data/trawl.db`, [])).toMatch(/server's files/);
    expect(leakProblem('look at this: 1:2', [])).toBeUndefined();
  });
});
