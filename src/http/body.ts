/**
 * Request bodies and cancellation read straight from Node's IncomingMessage/ServerResponse when the
 * door runs on @hono/node-server: building a Web `Request` for every call costs a third of the
 * throughput and keeps abort listeners alive until a late GC. Other runtimes use the Web Request.
 */
import { setMaxListeners } from 'node:events';
import type { Context } from 'hono';
import type { ByteUpload } from '../core/operator/upload.js';
import { ServiceError } from '../errors.js';
import { markMeasured } from '../lib/json-depth.js';
import { shapeBreachInText } from '../lib/json-shape.js';
import { BODY_LIMITS, bodyOverLimit } from '../ops/validation.js';
import { ClientClosedError } from './errors.js';
import type { HttpEnv } from './env.js';

const tooLarge = (max: number) =>
  new ServiceError('PAYLOAD_TOO_LARGE', `Request body is larger than ${max} bytes (TRAWL_MAX_BODY_BYTES).`);

/**
 * The body as text, refused with 413 once it passes `maxBytes` (by Content-Length or as it streams);
 * read once per request, a second call answers the same text (/mcp peeks at it before the SDK reads it).
 */
export async function readBodyText(c: Context<HttpEnv>, maxBytes: number): Promise<string> {
  const cached = c.get('bodyText');
  if (cached !== undefined) return cached;
  const text = await readBodyOnce(c, maxBytes);
  c.set('bodyText', text);
  return text;
}

async function readBodyOnce(c: Context<HttpEnv>, maxBytes: number): Promise<string> {
  const incoming = c.env?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
    return text;
  }
  if (Number(incoming.headers['content-length'] ?? 0) > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(chunk);
    }
  } catch (err) {
    // a client that disconnects mid-body is not a server error (./errors.ts logs it as a 499)
    if (!(err instanceof ServiceError) && incoming.destroyed) throw new ClientClosedError(String(err), { cause: err });
    throw err;
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The body of an upload route as the core's `ByteUpload`: its bytes as they arrive, and its declared
 * length. 415 unless its content type is `mediaType`. A client that disconnects mid-body is a 499, as
 * for JSON bodies; the size limit is the service's.
 */
export function requestUpload(c: Context<HttpEnv>, mediaType: string): ByteUpload {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== mediaType) {
    throw new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be ${mediaType}${type ? ` (got ${type})` : ''}.`,
    );
  }
  const length = c.req.header('content-length');
  const declaredBytes = length !== undefined && /^\d+$/.test(length) ? Number(length) : null;
  const incoming = c.env?.incoming;
  const source =
    (incoming as AsyncIterable<Buffer> | undefined) ?? (c.req.raw.body as AsyncIterable<Uint8Array> | null);
  async function* chunks(): AsyncIterable<Uint8Array> {
    try {
      if (source) yield* source;
    } catch (err) {
      if (!(err instanceof ServiceError) && incoming?.destroyed)
        throw new ClientClosedError(String(err), { cause: err });
      throw err;
    }
  }
  return { declaredBytes, chunks: chunks() };
}

/** Listeners a request's signal may have at once (its concurrent fetches and model calls). */
const MAX_LISTENERS = 1000;

/** The request's cancellation: aborts when the client goes away before the answer is finished. */
export function requestSignal(c: Context<HttpEnv>): AbortSignal {
  const outgoing = c.env?.outgoing;
  if (!outgoing) return c.req.raw.signal;
  const controller = new AbortController();
  // one request may run many fetches or model calls at once, each listening: not a leak
  setMaxListeners(MAX_LISTENERS, controller.signal);
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort();
  });
  return controller.signal;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Whether the request says its body is JSON. */
export const isJsonRequest = (c: Context<HttpEnv>): boolean => JSON_TYPE.test(c.req.header('content-type') ?? '');

/**
 * `text` parsed as JSON, or the parse error when it is not JSON. First 400 INVALID_REQUEST_BODY for a
 * shape over BODY_LIMITS, found in one linear pass before JSON.parse spends anything on it.
 */
export function parseMeasuredJson(text: string): { body: unknown } | { error: Error } {
  const breach = shapeBreachInText(text, BODY_LIMITS);
  if (breach) throw bodyOverLimit(breach);
  try {
    const body = JSON.parse(text) as unknown;
    markMeasured(body);
    return { body };
  } catch (err) {
    return { error: err as Error };
  }
}

/** The JSON body of a request; `{}` when empty. 415 for a non-JSON content type, 400 as parseMeasuredJson. */
export async function readJsonBody(c: Context<HttpEnv>, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(c, maxBytes);
  if (text.trim() === '') return {};
  if (!isJsonRequest(c)) {
    const type = c.req.header('content-type') ?? '';
    throw new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json${type ? ` (got ${type.split(';')[0]})` : ''}.`,
    );
  }
  const parsed = parseMeasuredJson(text);
  if ('error' in parsed)
    throw new ServiceError('INVALID_REQUEST_BODY', `Body is not valid JSON: ${parsed.error.message}`);
  return parsed.body;
}
