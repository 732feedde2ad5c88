/**
 * REST routes at the spec's paths, one per registry operation: content-type and JSON checks, the op's
 * schemas for path, query and body, then the shared invoke pipeline.
 */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { HttpDoor } from './door.js';
import type { ServiceContext } from '../core/context.js';
import { requireScope } from '../core/access/scopes.js';
import { ServiceError } from '../errors.js';
import type { Operation, StreamEvent } from '../ops/define-op.js';
import { notesOf } from '../ops/reply-notes.js';
import { parseOrThrow } from '../ops/validation.js';
import { authenticate, presentedKey } from './auth.js';
import { HttpError } from './http-error.js';
import { requirePayment, type X402Setup } from './x402/payment.js';
import { enforceRate } from './rate-limit.js';
import { readJsonBody, requestUpload } from './body.js';
import { serviceContext } from './context.js';
import type { HttpEnv } from './env.js';
import { drainedRetry, untilDrained } from './drain.js';

/**
 * Parses path, query and body with the op's schemas and merges them into the op's input; an upload op's
 * body is handed on unread, as `upload` (its service streams it, within its own limit).
 */
async function readInput(op: Operation, c: Context<HttpEnv>, maxBytes: number): Promise<Record<string, unknown>> {
  const params = op.params ? parseOrThrow(op.params, c.req.param(), 'path') : {};
  const query = op.query ? parseOrThrow(op.query, c.req.query(), 'query') : {};
  const body = op.body ? parseOrThrow(op.body, await readJsonBody(c, maxBytes), 'body') : {};
  const upload = op.upload ? { upload: requestUpload(c, op.upload.mediaType) } : {};
  return { ...(body as object), ...(query as object), ...(params as object), ...upload };
}

/**
 * A `text/event-stream` answer: one `data: <JSON>` event per frame, then `data: [DONE]`. The first
 * frame is awaited before the response starts, so an error up to then (bad input, no model) is an
 * ordinary error response; a later failure is sent as a last frame `{error: {tag, message}}` and logged.
 */
async function eventStream(c: Context<HttpEnv>, frames: AsyncIterable<unknown>, ctx: ServiceContext) {
  const iterator = frames[Symbol.asyncIterator]();
  const first = await iterator.next();
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => void iterator.return?.());
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        await sse.writeSSE({ data: JSON.stringify(next.value) });
      }
    } catch (err) {
      if (ctx.signal.aborted) return;
      const known = err instanceof ServiceError;
      if (!known) ctx.logger.error({ err }, 'stream failed after it started');
      const error = known
        ? { tag: err.tag, message: err.message }
        : { tag: 'INTERNAL_ERROR', message: 'The stream failed; see the server log for this requestId.' };
      await sse.writeSSE({ data: JSON.stringify({ requestId: ctx.requestId, error }) });
    }
    if (!ctx.signal.aborted) await sse.writeSSE({ data: '[DONE]' });
  });
}

/** A keyless request to a priced operation, paid with x402 (./x402/): validated, paid, served, settled. */
async function paidWithX402(c: Context<HttpEnv>, app: HttpDoor, setup: X402Setup, op: Operation) {
  const input = await readInput(op, c, app.config.maxBodyBytes);
  const ctx: ServiceContext = { ...serviceContext(app, c, null), paidWith: 'x402' };
  const payment = await requirePayment(c, setup, op, input, op.maxCost(input, app.accounts.pricing), ctx);
  if (op.stream?.when(input)) {
    await payment.settle(); // the receipt header must precede the stream
    return eventStream(c, app.ops.stream(op, input, ctx), ctx);
  }
  const output = await app.ops.invoke(op, input, ctx);
  await payment.settle();
  return c.json(output, op.successStatus as 200);
}

/** How often an idle named-event stream sends a `: keep-alive` comment. */
const KEEP_ALIVE_MS = 15_000;

/**
 * A stream of named events (`id:`, `event:`, `data:` lines), with `: keep-alive` comments while idle,
 * until the events end. The caller going away stops the stream, not what it reports on. A drain (the
 * server stopping) ends it with a `retry:` hint: the client reconnects with `Last-Event-ID` elsewhere.
 */
function namedEventStream(c: Context<HttpEnv>, events: AsyncIterable<StreamEvent>, ctx: ServiceContext) {
  const drain = c.get('drain');
  return streamSSE(c, async (sse) => {
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n').catch(() => undefined), KEEP_ALIVE_MS);
    try {
      for await (const e of untilDrained(events, drain)) {
        await sse.writeSSE({ id: String(e.id), event: e.event, data: JSON.stringify(e.data) });
      }
      if (drain.aborted) await sse.write(drainedRetry());
    } catch (err) {
      if (!ctx.signal.aborted) ctx.logger.error({ err }, 'event stream failed after it started');
    } finally {
      clearInterval(keepAlive);
    }
  });
}

/**
 * Mounts every operation, plus a 405 (with Allow) for other methods on the same paths; with `x402`, a
 * keyless request to a priced operation may pay for itself.
 */
export function mountOperations(hono: Hono<HttpEnv>, app: HttpDoor, ops: readonly Operation[], x402?: X402Setup): void {
  const methodsByPath = new Map<string, string[]>();
  for (const op of ops) {
    methodsByPath.set(op.route.path, [...(methodsByPath.get(op.route.path) ?? []), op.route.method]);
    hono.on(op.route.method, op.route.path, async (c) => {
      c.set('errorBody', op.errorBody);
      c.set('operation', op.name);
      if (x402 && op.priced && !presentedKey(c.req.raw.headers)) return paidWithX402(c, app, x402, op);
      const caller = await authenticate(c.req.raw.headers, app);
      await enforceRate(c, app, caller);
      // a key that may not call this op hears so before its body is read (money is checked after)
      if (op.capability) requireScope(caller.scopes, op.capability, caller.keyId);
      const input = await readInput(op, c, app.config.maxBodyBytes);
      const ctx = serviceContext(app, c, caller);
      if (op.stream?.when(input)) return eventStream(c, app.ops.stream(op, input, ctx), ctx);
      const output = await app.ops.invoke(op, input, ctx);
      const accepts = /\btext\/event-stream\b/.test(c.req.header('accept') ?? '');
      if (op.events?.when(input, accepts)) {
        const lastEventId = Number(c.req.header('last-event-id') ?? 0) || 0;
        return namedEventStream(c, app.ops.events(op, input, output, ctx, lastEventId), ctx);
      }
      const { queue } = notesOf(output);
      if (queue) {
        // Live fetches passed the admission queue: did this request wait, and how long (ms, integer).
        c.header('x-svc-queued', String(queue.queued));
        c.header('x-svc-queue-ms', String(queue.waitedMs));
      }
      return c.json(output, op.successStatus as 200);
    });
  }
  for (const [path, methods] of methodsByPath) {
    hono.all(path, () => {
      throw new HttpError('METHOD_NOT_ALLOWED', `Method not allowed here; use ${methods.join(' or ')}.`, {
        headers: { allow: methods.join(', ') },
      });
    });
  }
}
