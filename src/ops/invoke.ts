/**
 * The one path from a door to a service: beta gates, the handler, and the response shape. The REST and
 * MCP doors parse their input with the op's schemas and then call this.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../core/services.js';
import type { ServiceContext } from '../core/context.js';
import { checkBetas, type Operation } from './define-op.js';

/** A fresh request id: 32 lowercase hex characters. */
export function newRequestId(): string {
  return randomUUID().replaceAll('-', '');
}

/** Runs `op` on already-validated input; adds `requestId` where the spec's response carries it. */
export async function invoke(
  op: Operation,
  services: Services,
  input: unknown,
  ctx: ServiceContext,
): Promise<Record<string, unknown>> {
  checkBetas(op, input, ctx.betas);
  const output = (await op.run(services, input, ctx)) as Record<string, unknown>;
  if (!op.requestIdInBody) return output;
  const { requestId: _ignored, ...rest } = output;
  return { requestId: ctx.requestId, ...rest };
}

/** The frames of a streamed answer, after the same beta gates as `invoke`. */
export function invokeStream(
  op: Operation,
  services: Services,
  input: unknown,
  ctx: ServiceContext,
): AsyncIterable<unknown> {
  checkBetas(op, input, ctx.betas);
  return op.stream!.frames(services, input, ctx);
}
