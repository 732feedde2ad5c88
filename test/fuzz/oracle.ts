/**
 * Sends fuzz cases to a running HTTP door and judges each answer by the rule (issue 32, item 9):
 * no 5xx at all (the status table has no 502–504: a failed upstream is the caller's 4xx or the server's
 * 500, and a 500 is a bug here), every 4xx in the spec's envelope (`{error}` on monitor routes), each
 * answer within MAX_CASE_MS, and `/health` answering.
 */
import { TAG_STATUS } from '../../src/http/status.js';
import { bodyText, type FuzzCase } from './cases.js';

/** The longest a fuzz request may take (the budget: every answer within 1 s). */
export const MAX_CASE_MS = 1_000;

/** What one case got back. */
export interface Outcome {
  status: number;
  ms: number;
  /** The error tag of a 4xx/5xx envelope, when it has one. */
  tag?: string;
  /** Why the case broke a rule; undefined when it passed. */
  violation?: string;
}

const TAGS = new Set(Object.keys(TAG_STATUS));

/** Why an error body breaks the spec's envelope, or undefined. */
export function envelopeProblem(body: unknown, simple: boolean, status: number): string | undefined {
  if (typeof body !== 'object' || body === null) return 'not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.error !== 'string' || !b.error) return 'no "error" message';
  if (simple) return Object.keys(b).length === 1 ? undefined : `monitor routes answer {error} only, got ${Object.keys(b)}`; // prettier-ignore
  if (typeof b.requestId !== 'string' || !b.requestId) return 'no requestId';
  if (typeof b.tag !== 'string' || !TAGS.has(b.tag)) return `unknown tag ${String(b.tag)}`;
  if (TAG_STATUS[b.tag as keyof typeof TAG_STATUS] !== status) return `tag ${b.tag} with status ${status}`;
  return undefined;
}

/** The time rule an answer of `ms` breaks, or undefined. */
export function slowness(ms: number): string | undefined {
  return ms > MAX_CASE_MS ? `took ${Math.round(ms)} ms (limit ${MAX_CASE_MS})` : undefined;
}

/** The rule an answer breaks, or undefined: its status and body first, then its time. */
export function judge(c: FuzzCase, status: number, body: unknown, ms: number): string | undefined {
  if (status >= 500) return `answered ${status}: ${JSON.stringify(body).slice(0, 500)}`;
  if (status >= 400) {
    const problem = envelopeProblem(body, c.endpoint.simpleErrors, status);
    if (problem) return `${status} error body: ${problem}`;
  }
  return slowness(ms);
}

/** Sends `c` to `base` with `key`; resolves with what came back and the rule it broke, if any. */
export async function sendCase(base: string, key: string, c: FuzzCase): Promise<Outcome> {
  const text = bodyText(c.body);
  const headers: Record<string, string> = { 'x-api-key': key };
  if (text !== undefined) headers['content-type'] = c.body?.contentType ?? 'application/json';
  const started = performance.now();
  try {
    const res = await fetch(base + c.url, {
      method: c.endpoint.method,
      headers,
      body: text,
      signal: AbortSignal.timeout(MAX_CASE_MS * 5),
    });
    if (/^text\/event-stream/.test(res.headers.get('content-type') ?? '')) {
      // a stream (an agent run with `stream: true`) lasts as long as its run: its answer is its start
      const ms = performance.now() - started;
      await res.body?.cancel();
      return { status: res.status, ms, violation: judge(c, res.status, {}, ms) };
    }
    const raw = await res.text();
    const ms = performance.now() - started;
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      /* judged as not an object */
    }
    const tag = typeof (body as { tag?: unknown })?.tag === 'string' ? (body as { tag: string }).tag : undefined;
    return { status: res.status, ms, tag, violation: judge(c, res.status, body, ms) };
  } catch (err) {
    const ms = performance.now() - started;
    return { status: 0, ms, violation: `no answer after ${Math.round(ms)} ms: ${(err as Error).message}` };
  }
}

/** A stack trace's frame: `at fn (file:1:2)` starting a line (or an escaped line, in JSON text). */
const STACK_FRAME = /(?:^|\n|\\n)\s*at [^\n\\]*?:\d+:\d+/;

/**
 * Why `text` leaks what an answer must never show, or undefined: one of `secrets` (the caller's key, a
 * model key), or a stack trace or a path of the server's own files.
 */
export function leakProblem(text: string, secrets: readonly string[]): string | undefined {
  const secret = secrets.find((s) => s.length >= 8 && text.includes(s));
  if (secret) return `the answer shows a secret (${secret.slice(0, 6)}…)`;
  const frame = STACK_FRAME.exec(text);
  if (frame) return `the answer shows a stack trace: ${JSON.stringify(frame[0])}`;
  if (text.includes(process.cwd())) return `the answer shows a path of the server's files (${process.cwd()})`;
  return undefined;
}

/** Why the server is not well after a case: `/health` slow or failing, or a polluted prototype. */
export async function healthProblem(base: string): Promise<string | undefined> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(MAX_CASE_MS) });
    await res.text();
    if (res.status !== 200) return `/health answered ${res.status}`;
  } catch (err) {
    return `/health did not answer within ${MAX_CASE_MS} ms (${(err as Error).message}; ${Math.round(performance.now() - started)} ms)`; // prettier-ignore
  }
  if ((Object.prototype as Record<string, unknown>).polluted !== undefined) return 'Object.prototype was polluted';
  return undefined;
}

/** A case as one line for a counterexample report (long values cut). */
export function describeCase(c: FuzzCase): string {
  const text = bodyText(c.body) ?? '';
  const shown = text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text;
  return `${c.cls} ${c.endpoint.method} ${c.url.slice(0, 120)} ${shown}`;
}

type Json = Record<string, unknown>;

/** The JSON-RPC messages of an answer of POST /mcp: a JSON body (a message or a batch's array), or an event stream's `data:` lines. */
export function rpcMessages(contentType: string, text: string): unknown[] | undefined {
  const parse = (s: string): unknown => {
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return undefined;
    }
  };
  if (/^text\/event-stream/i.test(contentType)) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => parse(l.slice(5).trim()));
    return data.some((d) => d === undefined) ? undefined : data;
  }
  const body = parse(text);
  return body === undefined ? undefined : Array.isArray(body) ? body : [body];
}

/** Why a JSON-RPC error object is not a clear one (an integer code and a message), or undefined. */
function rpcErrorProblem(error: unknown): string | undefined {
  const e = error as Json | null;
  if (typeof e !== 'object' || e === null) return 'an error that is not an object';
  if (!Number.isInteger(e.code)) return `an error without an integer code: ${JSON.stringify(e).slice(0, 200)}`;
  if (typeof e.message !== 'string' || !e.message.trim()) return `an error without a message: ${JSON.stringify(e).slice(0, 200)}`; // prettier-ignore
  return undefined;
}

/**
 * Why an answer of POST /mcp to a raw request breaks the rule, or undefined: no 5xx; a 4xx is a JSON-RPC
 * error (its `data` naming the request id and a known tag) or the spec's envelope; a 200 holds JSON-RPC
 * responses, each a result or a clear error; a 202 (a notification taken) has no body. When `refusal` is
 * due, no response may be a result. Node's own 431 (headers past 16 KB, no body) is not the door's.
 */
export function rpcAnswerProblem(
  status: number,
  contentType: string,
  text: string,
  expect: 'any' | 'refusal',
): string | undefined {
  if (status >= 500) return `answered ${status}: ${text.slice(0, 300)}`;
  if (status === 431) return undefined;
  if (status >= 400) {
    const [body, ...more] = rpcMessages(contentType, text) ?? [];
    if (typeof body !== 'object' || body === null || more.length) return `${status} that is not one JSON object: ${text.slice(0, 200)}`; // prettier-ignore
    const b = body as Json;
    if (b.error && typeof b.error === 'object') {
      const problem = rpcErrorProblem(b.error);
      if (problem) return `${status} with ${problem}`;
      const data = (b.error as Json).data as Json | undefined;
      if (typeof data?.requestId !== 'string' || typeof data.tag !== 'string' || !TAGS.has(data.tag)) return `${status} JSON-RPC error without the request id and a known tag in its data: ${text.slice(0, 200)}`; // prettier-ignore
      return undefined;
    }
    const problem = envelopeProblem(body, false, status);
    return problem ? `${status} error body: ${problem}` : undefined;
  }
  if (status === 202) {
    if (text.trim()) return `202 with a body: ${text.slice(0, 200)}`;
    return expect === 'refusal' ? 'taken (202) where a refusal was due' : undefined;
  }
  if (status !== 200) return `answered ${status}: ${text.slice(0, 200)}`;
  const messages = rpcMessages(contentType, text);
  if (!messages) return `200 whose body is not JSON-RPC: ${text.slice(0, 200)}`;
  const responses = messages.filter((m) => m && typeof m === 'object' && ('result' in m || 'error' in m)) as Json[];
  if (responses.length === 0) return `200 without a JSON-RPC response: ${text.slice(0, 200)}`;
  for (const r of responses) {
    if ('error' in r) {
      const problem = rpcErrorProblem(r.error);
      if (problem) return `200 with ${problem}`;
    } else if (expect === 'refusal') {
      return `a result where a refusal was due: ${JSON.stringify(r.result).slice(0, 300)}`;
    }
  }
  return undefined;
}
