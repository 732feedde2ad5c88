/**
 * The OpenAI-style Responses door over agent runs (model `svc-agent`; the wire format in ./responses/):
 * `POST /v1/responses` (synchronous, streamed or background), `GET /v1/responses/{id}` (whole or as a
 * replayed stream), cancel and delete. Keys, rates, scopes and metering as the REST routes (the agent
 * operations run through `invoke`); errors in OpenAI's shape. docs/responses.md.
 */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { drainedRetry, untilDrained } from '../drain.js';
import type { HttpDoor } from '../door.js';
import type { Caller, ServiceContext } from '../../core/context.js';
import type { AgentEvent } from '../../core/agent/agent-runs.service.js';
import { ResponsesRequest, RetrieveResponseQuery, asResponsesError, toAgentRunRequest } from './request.js';
import { toResponse, toResponseEvents, type ResponseStreamEvent, type RunView } from './events.js';
import { ServiceError, toServiceError } from '../../errors.js';
import { HttpError, headersOf } from '../http-error.js';
import { answerOf } from '../status.js';
import { cancelAgentRunOp, createAgentRunOp, deleteAgentRunOp, getAgentRunOp } from '../../ops/agent-runs.ops.js';
import { parseOrThrow } from '../../ops/validation.js';
import { AgentRunIdParams } from '../../schemas/agent-runs.schema.js';
import { authenticate } from '../auth.js';
import { readJsonBody } from '../body.js';
import { serviceContext } from '../context.js';
import { enforceRate } from '../rate-limit.js';
import type { HttpEnv } from '../env.js';

/** How often an idle stream sends a `: keep-alive` comment (research can be quiet for a while). */
const KEEP_ALIVE_MS = 15_000;

/** OpenAI's error `type` for a status; `code` keeps Trawl's tag. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** `{error: {message, type, code, param}}` with the status of the tag table; unexpected errors logged. */
function openAiError(c: Context<HttpEnv>, app: HttpDoor, thrown: unknown): Response {
  const err = toServiceError(thrown);
  if (err.tag === 'INTERNAL_ERROR' && !(thrown instanceof ServiceError)) {
    app.logger.error({ requestId: c.get('requestId'), err: thrown }, 'unexpected error');
  }
  const answer = answerOf(err);
  for (const [name, value] of Object.entries({ ...answer.headers, ...headersOf(err) })) c.header(name, value);
  const error = { message: err.message, type: errorType(answer.status), code: err.tag, param: err.field ?? null };
  return c.json({ error }, answer.status as 400);
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Named SSE events (`event: <type>`, `data: <JSON>`) until the events end; a late failure is an `error` event. */
function responseStream(c: Context<HttpEnv>, ctx: ServiceContext, events: AsyncIterable<ResponseStreamEvent>) {
  const drain = c.get('drain');
  return streamSSE(c, async (sse) => {
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n').catch(() => undefined), KEEP_ALIVE_MS);
    let last = -1;
    try {
      // the server stopping ends the stream with a retry hint (the run goes on: GET /v1/responses/{id})
      for await (const e of untilDrained(events, drain)) {
        last = e.sequence_number;
        await sse.writeSSE({ event: e.type, data: JSON.stringify(e) });
      }
      if (drain.aborted) await sse.write(drainedRetry());
    } catch (thrown) {
      if (ctx.signal.aborted) return;
      const known = thrown instanceof ServiceError;
      if (!known) ctx.logger.error({ err: thrown }, 'responses stream failed after it started');
      const err = toServiceError(thrown);
      const data = { type: 'error', code: err.tag, message: err.message, param: null, sequence_number: last + 1 };
      await sse.writeSSE({ event: 'error', data: JSON.stringify(data) });
    } finally {
      clearInterval(keepAlive);
    }
  });
}

/** Mounts /v1/responses: create, retrieve, cancel, delete, and 405 for other methods on those paths. */
export function mountResponses(hono: Hono<HttpEnv>, app: HttpDoor): void {
  const runs = app.agentRuns;
  type Handler = (c: Context<HttpEnv>, ctx: ServiceContext & { caller: Caller }) => Promise<Response>;
  const route = (handler: Handler) => async (c: Context<HttpEnv>) => {
    try {
      const caller = await authenticate(c.req.raw.headers, app);
      await enforceRate(c, app, caller);
      return await handler(c, { ...serviceContext(app, c, caller), caller });
    } catch (err) {
      return openAiError(c, app, err);
    }
  };
  const stored = (id: string, ctx: ServiceContext) =>
    collect(runs.stream(id, ctx.caller, { afterId: 0, follow: false, signal: ctx.signal }));
  const idOf = (c: Context<HttpEnv>) => parseOrThrow(AgentRunIdParams, c.req.param(), 'path').id;

  hono.post(
    '/v1/responses',
    route(async (c, ctx) => {
      const call = toAgentRunRequest(
        parseOrThrow(ResponsesRequest, await readJsonBody(c, app.config.maxBodyBytes), 'body'),
      );
      const created = (await app.ops.invoke(createAgentRunOp, call.run, ctx).catch((err: unknown) => {
        throw asResponsesError(err);
      })) as unknown as RunView;
      const { id } = created;
      if (!call.background) {
        // as with OpenAI, a response the caller stops waiting for is cancelled; a background one runs on
        const cancel = () => {
          // deleted meanwhile: nothing to cancel
          runs.cancel(id, ctx.caller).catch(() => undefined);
        };
        ctx.signal.addEventListener('abort', cancel, { once: true });
      }
      const live = () => runs.stream(id, ctx.caller, { afterId: 0, follow: true, signal: ctx.signal });
      if (call.stream)
        return responseStream(c, ctx, toResponseEvents(created, live(), { background: call.background }));
      if (call.background) return c.json(toResponse(await runs.get(id, ctx.caller), await stored(id, ctx), true));
      const events = await collect(live());
      if (ctx.signal.aborted) return c.body(null); // nobody is listening
      return c.json(toResponse(await runs.get(id, ctx.caller), events, false));
    }),
  );

  hono.get(
    '/v1/responses/:id',
    route(async (c, ctx) => {
      const id = idOf(c);
      const { 'include[]': _include, ...rest } = c.req.query();
      const include = c.req.queries('include[]') ?? c.req.queries('include');
      const query = parseOrThrow(RetrieveResponseQuery, { ...rest, ...(include ? { include } : {}) }, 'query');
      const run = (await app.ops.invoke(getAgentRunOp, { id }, ctx)) as unknown as RunView;
      if (query.stream === 'true') {
        const events = runs.stream(id, ctx.caller, { afterId: 0, follow: true, signal: ctx.signal });
        return responseStream(
          c,
          ctx,
          toResponseEvents(run, events, { background: null, startingAfter: query.starting_after }),
        );
      }
      return c.json(toResponse(run, await stored(id, ctx), null));
    }),
  );

  hono.post(
    '/v1/responses/:id/cancel',
    route(async (c, ctx) => {
      const id = idOf(c);
      const run = (await app.ops.invoke(cancelAgentRunOp, { id }, ctx)) as unknown as RunView;
      return c.json(toResponse(run, await stored(id, ctx), null));
    }),
  );

  hono.delete(
    '/v1/responses/:id',
    route(async (c, ctx) => {
      const id = idOf(c);
      await app.ops.invoke(deleteAgentRunOp, { id }, ctx);
      return c.json({ id, object: 'response', deleted: true });
    }),
  );

  const allowed: [string, string][] = [
    ['/v1/responses', 'POST'],
    ['/v1/responses/:id', 'GET, DELETE'],
    ['/v1/responses/:id/cancel', 'POST'],
  ];
  for (const [path, allow] of allowed) {
    hono.all(path, (c) =>
      openAiError(
        c,
        app,
        new HttpError('METHOD_NOT_ALLOWED', `Method not allowed here; use ${allow}.`, { headers: { allow } }),
      ),
    );
  }
}
