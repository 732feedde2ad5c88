/**
 * The one path from a door to a service: beta gates, the accounts checks, the handler, and the response
 * shape. The REST and MCP doors parse their input with the op's schemas and then call this; the op is
 * handed only the services it declares (`uses`), the accounts checks here use `accounts`.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../core/ports.js';
import type { ServiceContext } from '../core/context.js';
import type { Charge } from '../core/accounts/meter.js';
import { collectWarnings } from '../core/warnings.js';
import { ServiceError } from '../errors.js';
import { observe } from '../lib/observe.js';
import { noTracing, type SpanOptions, type Tracing } from '../lib/tracing.js';
import { checkBetas, servicesFor, type Operation, type StreamEvent } from './define-op.js';
import { compileCallerSchemas } from './validation.js';
import { notesOf, withNotes } from './reply-notes.js';

/**
 * The operations run over one app's services: what a door holds instead of the services themselves
 * (each op is still handed only the services it declares).
 */
export interface OpRunner {
  invoke(op: Operation, input: unknown, ctx: ServiceContext): Promise<Record<string, unknown>>;
  stream(op: Operation, input: unknown, ctx: ServiceContext): AsyncIterable<unknown>;
  events(op: Operation, input: unknown, output: unknown, ctx: ServiceContext, lastEventId: number): AsyncIterable<StreamEvent>; // prettier-ignore
}

/**
 * The runner of the operations over `services` (the composition root's record), each call in a span
 * named after its operation; a zero-retention team's call makes its trace content-free.
 */
export function createOpRunner(services: Services, tracing: Tracing = noTracing): OpRunner {
  const traced = (op: Operation, ctx: ServiceContext): SpanOptions => {
    const contentFree = ctx.caller?.zeroRetention === true;
    if (contentFree) tracing.markContentFree(); // the door's trace, started before the caller was known
    const attributes = { 'trawl.operation': op.name, 'trawl.request_id': ctx.requestId, 'trawl.team_id': ctx.caller?.teamId }; // prettier-ignore
    return { attributes, contentFree };
  };
  return {
    invoke: (op, input, ctx) => tracing.span(`op ${op.name}`, traced(op, ctx), () => invoke(op, services, input, ctx)),
    stream: (op, input, ctx) =>
      tracing.iterate(`op ${op.name}`, traced(op, ctx), () => invokeStream(op, services, input, ctx)),
    events: (op, input, output, ctx, lastEventId) => invokeEvents(op, services, input, output, ctx, lastEventId),
  };
}

/** A fresh request id: 32 lowercase hex characters. */
export function newRequestId(): string {
  return randomUUID().replaceAll('-', '');
}

/** `costDollars.total` of an answer (or a stream's last frame), 0 when it has none. */
function costOf(output: unknown): number | undefined {
  const total = (output as { costDollars?: { total?: unknown } } | null)?.costDollars?.total;
  return typeof total === 'number' ? total : undefined;
}

/** The accounts checks (scope, team modes, money) of a call; the charge records its cost at the end. */
function admit(op: Operation, services: Services, input: unknown, ctx: ServiceContext): Promise<Charge> {
  const { accounts } = services;
  return accounts.admit(
    {
      scope: op.capability,
      operation: op.name,
      maxDollars: op.maxCost(input, accounts.pricing),
      compliance: (input as { compliance?: string | null }).compliance,
      retainsContent: op.retainsContent,
      unkeyedAs: ctx.paidWith,
    },
    ctx.caller,
  );
}

/** Whether the op's response has a `warnings` field (its wire schema says so: /search, /findSimilar). */
function carriesWarnings(op: Operation): boolean {
  const shape = (op.output as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && 'warnings' in shape;
}

/**
 * Runs `op` on already-validated input; adds `requestId` where the spec's response carries it, and the
 * warnings the services reported (src/core/warnings.ts) where the response has `warnings`. The notes
 * beside the answer (./reply-notes.ts) stay with the body it returns.
 */
export async function invoke(
  op: Operation,
  services: Services,
  input: unknown,
  ctx: ServiceContext,
): Promise<Record<string, unknown>> {
  checkBetas(op, input, ctx.betas);
  await compileCallerSchemas(input);
  const charge = await admit(op, services, input, ctx);
  const collected = collectWarnings(ctx);
  let output: Record<string, unknown>;
  try {
    output = (await op.run(servicesFor(op, services), input, collected.ctx)) as Record<string, unknown>;
  } catch (err) {
    await charge.settle(0);
    observe.operationError(op.name, err instanceof ServiceError ? err.tag : 'INTERNAL_ERROR');
    throw err;
  }
  await charge.settle(costOf(output) ?? 0);
  const notes = notesOf(output);
  if (collected.warnings.length > 0 && carriesWarnings(op)) output = { ...output, warnings: collected.warnings };
  if (!op.requestIdInBody) return withNotes(output, notes);
  const { requestId: _ignored, ...rest } = output;
  return withNotes({ requestId: ctx.requestId, ...rest }, notes);
}

/** The frames of a streamed answer, after the same beta gates and schema compiling as `invoke`. */
export function invokeStream(
  op: Operation,
  services: Services,
  input: unknown,
  ctx: ServiceContext,
): AsyncIterable<unknown> {
  checkBetas(op, input, ctx.betas);
  return (async function* () {
    // before the first frame, so a schema that does not compile is an ordinary error response
    await compileCallerSchemas(input);
    const charge = await admit(op, services, input, ctx);
    yield* metered(op.stream!.frames(servicesFor(op, services), input, ctx), charge);
  })();
}

/** The named events of an answer the caller asked to follow (`op.events`), after `invoke` answered. */
export function invokeEvents(
  op: Operation,
  services: Services,
  input: unknown,
  output: unknown,
  ctx: ServiceContext,
  lastEventId: number,
): AsyncIterable<StreamEvent> {
  return op.events!.events(servicesFor(op, services), input, output, ctx, lastEventId);
}

/** The frames of a stream, charging the cost its last costed frame names when it ends (0 if none). */
async function* metered(frames: AsyncIterable<unknown>, charge: Charge): AsyncIterable<unknown> {
  let cost = 0;
  try {
    for await (const frame of frames) {
      cost = costOf(frame) ?? cost;
      yield frame;
    }
  } finally {
    await charge.settle(cost);
  }
}
