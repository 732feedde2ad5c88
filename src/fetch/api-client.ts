/**
 * A small JSON client for the provider APIs an operator configures (embeddings, models, web search).
 * Operator-chosen endpoints: no SSRF guard and no robots.txt, but the same timeouts, caps and tags.
 * Header values (API keys) never appear in errors or logs.
 */
import { Agent, type Dispatcher } from 'undici';
import type { Logger } from '../lib/logger.js';
import type { AddressGuard } from './address-guard.js';
import { readBody } from './body.js';
import { withDeadline } from './deadline.js';
import { statusError, toFetchError } from './errors.js';
import { DEFAULT_USER_AGENT } from './fetcher.js';
import { parseRetryAfter } from './retry.js';
import { FetchError } from './types.js';
import { logUrl } from './url-policy.js';

export interface ApiClientOptions {
  userAgent?: string;
  logger?: Logger;
  /** Defaults 10 s connect, 60 s headers (models think before answering), 60 s between body chunks. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Largest response read. Default 32 MiB. */
  maxResponseBytes?: number;
  /** The SSRF guard every connection goes through (default: none, for endpoints the operator chose). */
  guard?: AddressGuard;
}

export interface ApiCallOptions {
  /** Sent as given; never logged. */
  headers?: Record<string, string>;
  /** Bounds the whole call (→ `CRAWL_TIMEOUT`). Default 60 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ApiStreamOptions extends ApiCallOptions {
  /** Longest silence between two body chunks once the headers arrived (→ `CRAWL_TIMEOUT`). Default `timeoutMs`. */
  idleTimeoutMs?: number;
}

/** The `data:` payloads of a Server-Sent-Events response, one string per event, read once. */
export interface EventStream extends AsyncIterable<string> {
  /** Closes the response (idempotent), so the server sees the client go; iteration then ends quietly. */
  close(): void;
}

/** A non-2xx answer: the status's `FetchError`, plus the server's `Retry-After` in ms when it sent one. */
export class ApiStatusError extends FetchError {
  readonly retryAfterMs: number | undefined;
  constructor(base: FetchError, retryAfterMs: number | undefined) {
    super(base.tag, base.message, base.httpStatusCode);
    this.retryAfterMs = retryAfterMs;
  }
}

export interface ApiClient {
  /** POSTs `body` as JSON and parses the JSON answer; throws `FetchError` (status tags, with up to 500 chars of the error body). */
  postJson<T>(url: string, body: unknown, options?: ApiCallOptions): Promise<T>;
  /** GETs a JSON document; same errors as `postJson`. */
  getJson<T>(url: string, options?: ApiCallOptions): Promise<T>;
  /**
   * POSTs `body` as JSON and resolves once a 2xx answer's headers arrive, with its SSE `data:` payloads.
   * A streamed answer may rightly last minutes, so no whole-call bound applies: `timeoutMs` bounds the
   * wait for the headers, `idleTimeoutMs` each silence between chunks (both → `CRAWL_TIMEOUT`); the
   * caller bounds the total with `signal` or by stopping. Same status errors as `postJson`, the byte cap
   * counts the whole stream (`CRAWL_TOO_LARGE`), a JSON answer instead of an event stream is
   * `CRAWL_UNKNOWN_ERROR`, an abort mid-stream is `CRAWL_UNKNOWN_ERROR` ("cancelled"). Leaving the
   * loop early or aborting closes the connection.
   */
  postStream(url: string, body: unknown, options?: ApiStreamOptions): Promise<EventStream>;
  close(): Promise<void>;
}

const ERROR_BODY_CHARS = 500;

type ResponseData = Dispatcher.ResponseData;

function parseEndpoint(raw: string): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url) throw new FetchError('UNSUPPORTED_URL', 'the API endpoint is not a valid URL');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('UNSUPPORTED_URL', `${url.protocol} is not an http(s) API endpoint`);
  }
  return url;
}

const isOk = (res: ResponseData) => res.statusCode >= 200 && res.statusCode < 300;

function toStatusError(res: ResponseData, where: string, text: string): ApiStatusError {
  const detail = text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
  const retryAfter = res.headers['retry-after'];
  const retryAfterMs = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : undefined, Date.now());
  return new ApiStatusError(statusError(res.statusCode, where, detail), retryAfterMs);
}

/** An incremental parser of the SSE wire format: each event's `data` lines joined by `\n`; other fields skipped. */
function createSseParser(): { push(text: string): string[]; end(): string[] } {
  let pending = '';
  let data: string[] | undefined;
  const onLine = (line: string, out: string[]) => {
    if (line === '') {
      const payload = data?.join('\n');
      if (payload) out.push(payload);
      data = undefined;
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0 || (colon < 0 ? line : line.slice(0, colon)) !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    (data ??= []).push(value.startsWith(' ') ? value.slice(1) : value);
  };
  return {
    push(text) {
      const out: string[] = [];
      const buffer = pending + text;
      const breaks = /\r\n|\r|\n/g;
      let start = 0;
      for (let m = breaks.exec(buffer); m; m = breaks.exec(buffer)) {
        // A final "\r" may be the first half of a "\r\n" split across chunks.
        if (m[0] === '\r' && m.index === buffer.length - 1) break;
        onLine(buffer.slice(start, m.index), out);
        start = m.index + m[0].length;
      }
      pending = buffer.slice(start);
      return out;
    },
    // Lenient: servers often end with "data: [DONE]" and no blank line, so the last event still counts.
    end() {
      const out: string[] = [];
      if (pending) onLine(pending, out);
      onLine('', out);
      pending = '';
      return out;
    },
  };
}

interface StreamContext {
  where: string;
  host: string;
  idleMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

/** Reads `body` as SSE; the idle timer, the caller's abort and `close()` all end it by destroying the body. */
function toEventStream(body: ResponseData['body'], ctx: StreamContext): EventStream {
  let timer: NodeJS.Timeout | undefined;
  let failure: FetchError | undefined;
  let closed = false;
  const fail = (err: FetchError) => {
    failure ??= err;
    body.destroy(err);
  };
  const onAbort = () =>
    fail(new FetchError('CRAWL_UNKNOWN_ERROR', 'the fetch was cancelled', null, { cause: ctx.signal?.reason }));
  const release = () => {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onAbort);
    body.destroy();
  };
  // Failures surface through the iterator; without a listener a destroy before the first read would crash.
  body.on('error', () => {});
  if (ctx.signal?.aborted) onAbort();
  else ctx.signal?.addEventListener('abort', onAbort, { once: true });

  async function* read(): AsyncGenerator<string> {
    const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const decoder = new TextDecoder();
    const parser = createSseParser();
    let size = 0;
    try {
      for (;;) {
        // Only the server's silence counts, not the time the consumer spends on an event.
        timer = setTimeout(
          () => fail(new FetchError('CRAWL_TIMEOUT', `${ctx.where} sent nothing for ${ctx.idleMs} ms`)),
          ctx.idleMs,
        );
        const next = await chunks.next();
        clearTimeout(timer);
        if (next.done) break;
        size += next.value.length;
        if (size > ctx.maxBytes) {
          throw new FetchError(
            'CRAWL_TOO_LARGE',
            `${ctx.host}: the stream is larger than the ${ctx.maxBytes}-byte cap`,
          );
        }
        yield* parser.push(decoder.decode(next.value, { stream: true }));
      }
      yield* parser.push(decoder.decode());
      yield* parser.end();
    } catch (err) {
      if (closed) return;
      throw failure ?? toFetchError(err, ctx.host);
    } finally {
      release();
    }
  }

  const events = read();
  const close = () => {
    closed = true;
    release();
  };
  // A consumer that stops before its first read never enters read()'s finally; return() closes regardless.
  const iterator: AsyncIterator<string> = {
    next: () => events.next(),
    return: (value?: unknown) => {
      close();
      return events.return(value);
    },
  };
  return { close, [Symbol.asyncIterator]: () => iterator };
}

/** Creates a client over its own undici Agent. */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const agent = new Agent({
    connect: options.guard ? options.guard.connector({ timeoutMs: connectTimeout }) : { timeout: connectTimeout },
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: options.bodyTimeoutMs ?? 60_000,
  });
  const maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  const limits = { maxBytes, overflow: 'error' as const };
  const userAgent = options.userAgent?.trim() || DEFAULT_USER_AGENT;

  const send = (
    url: URL,
    method: 'GET' | 'POST',
    body: unknown,
    accept: string,
    opts: ApiCallOptions,
    signal: AbortSignal,
  ) =>
    agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method,
      signal,
      headers: {
        'user-agent': userAgent,
        accept,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...opts.headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const readText = async (res: ResponseData, url: URL) =>
    (await readBody(res.body, res.headers['content-length'] as string | undefined, limits, url.host)).toString('utf8');
  const logCall = (where: string, method: string, res: ResponseData, startedAt: number, msg: string) =>
    options.logger?.debug({ url: where, method, status: res.statusCode, ms: Date.now() - startedAt }, msg);

  const call = async <T>(method: 'GET' | 'POST', raw: string, body: unknown, opts: ApiCallOptions): Promise<T> => {
    const url = parseEndpoint(raw);
    options.guard?.checkHost(url.hostname);
    const where = logUrl(url);
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const startedAt = Date.now();
    const onTimeout = () => new FetchError('CRAWL_TIMEOUT', `${where} did not answer within ${timeoutMs} ms`);
    return withDeadline(timeoutMs, opts.signal, url.host, onTimeout, async (signal) => {
      const res = await send(url, method, body, 'application/json', opts, signal);
      const text = await readText(res, url);
      logCall(where, method, res, startedAt, 'api call');
      if (!isOk(res)) throw toStatusError(res, where, text);
      try {
        return JSON.parse(text) as T;
      } catch (err) {
        const head = text.slice(0, 100);
        throw new FetchError('CRAWL_UNKNOWN_ERROR', `${where} answered non-JSON: ${head}`, res.statusCode, {
          cause: err,
        });
      }
    });
  };

  const stream = async (raw: string, body: unknown, opts: ApiStreamOptions): Promise<EventStream> => {
    const url = parseEndpoint(raw);
    const where = logUrl(url);
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const startedAt = Date.now();
    const onTimeout = () => new FetchError('CRAWL_TIMEOUT', `${where} sent no answer within ${timeoutMs} ms`);
    const res = await withDeadline(timeoutMs, opts.signal, url.host, onTimeout, async (signal) => {
      const res = await send(url, 'POST', body, 'text/event-stream', opts, signal);
      logCall(where, 'POST', res, startedAt, 'api stream');
      const type = String(res.headers['content-type'] ?? '').toLowerCase();
      if (isOk(res) && !type.startsWith('application/json')) return res;
      const text = await readText(res, url);
      if (!isOk(res)) throw toStatusError(res, where, text);
      throw new FetchError(
        'CRAWL_UNKNOWN_ERROR',
        `${where} answered JSON, not an event stream: ${text.slice(0, 100)}`,
        res.statusCode,
      );
    });
    const idleMs = opts.idleTimeoutMs ?? timeoutMs;
    return toEventStream(res.body, { where, host: url.host, idleMs, maxBytes, signal: opts.signal });
  };

  return {
    postJson: (url, body, opts = {}) => call('POST', url, body, opts),
    getJson: (url, opts = {}) => call('GET', url, undefined, opts),
    postStream: (url, body, opts = {}) => stream(url, body, opts),
    close: () => agent.close(),
  };
}
