/**
 * The client's model in protocol revision 2026-07-28, which has no requests from server to client: a
 * tool call that needs the model answers `input_required` with the sampling requests its work made
 * (`inputRequests`, each keyed by a hash of its parameters), and the client retries the call with
 * their answers (`inputResponses`). The call runs again from the start; each model request it makes
 * is answered from what the client gave, in this round or (in the signed `requestState`) an earlier
 * one; a request not answered yet is collected for the next round. docs/synthesis.md.
 *
 * Only for the local caller (stdio, or keyless loopback HTTP): a call run again is metered again, and a
 * key's calls are metered, so a key's calls use the configured model, as over 2025-11-25 HTTP.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  inputRequired,
  type CreateMessageRequest,
  type CreateMessageResult,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { ServiceError } from '../errors.js';
import type { Extra } from './types.js';

/** Rounds of one call at most (then it answers as it can: without the model's part). */
export const MAX_ROUNDS = 6;

/** What `requestState` carries from round to round: the answers so far and the rounds made. */
interface RoundState {
  answers: Record<string, CreateMessageResult>;
  round: number;
}

let codec: RequestStateCodec<RoundState> | undefined;

/**
 * The codec that signs `requestState` (HMAC, a key of this process: the local caller's calls are
 * served by one process), bound to the method it was made for.
 */
export function roundStateCodec(): RequestStateCodec<RoundState> {
  codec ??= createRequestStateCodec<RoundState>({
    key: randomBytes(32),
    ttlSeconds: 900,
    bind: (ctx) => ctx.mcpReq.method,
  });
  return codec;
}

/** The sampling of one round of a call: answers what it can, collects the rest. */
export interface SamplingRound {
  /** The `requestSampling` of the call's Extra. */
  request(params: CreateMessageRequest['params']): Promise<CreateMessageResult>;
  /** Whether the call asked for something not answered yet (its result is then not the answer). */
  waiting(): boolean;
  /** The input_required result asking for what is missing, or undefined past MAX_ROUNDS. */
  ask(ctx: ServerContext): Promise<InputRequiredResult | undefined>;
}

/** The sampling round of the request `ctx` (its responses, and the state of the rounds before). */
export function samplingRound(ctx: ServerContext): SamplingRound {
  const prior = ctx.mcpReq.requestState<RoundState>() ?? { answers: {}, round: 0 };
  const answers: Record<string, CreateMessageResult> = { ...prior.answers };
  for (const [key, value] of Object.entries(ctx.mcpReq.inputResponses ?? {})) {
    if (isMessageResult(value)) answers[key] = value;
  }
  const pending = new Map<string, CreateMessageRequest['params']>();
  return {
    async request(params) {
      const key = keyOf(params);
      const answer = answers[key];
      if (answer) return answer;
      if (prior.round < MAX_ROUNDS) pending.set(key, params);
      // the services take a model that did not answer as a failed one; this round's result is dropped
      throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', "the MCP client's model has not answered yet");
    },
    waiting: () => pending.size > 0,
    async ask(ctx) {
      if (pending.size === 0) return undefined;
      const requestState = await roundStateCodec().mint({ answers, round: prior.round + 1 }, ctx);
      const inputRequests = Object.fromEntries([...pending].map(([key, p]) => [key, inputRequired.createMessage(p)]));
      return inputRequired({ inputRequests, requestState });
    },
  };
}

/** A model request's key: the hash of its parameters (the same request in the next round, the same key). */
function keyOf(params: CreateMessageRequest['params']): string {
  return `sample-${createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 24)}`;
}

function isMessageResult(value: unknown): value is CreateMessageResult {
  const v = value as Partial<CreateMessageResult> | null;
  return typeof v === 'object' && v !== null && typeof v.model === 'string' && typeof v.content === 'object';
}

/**
 * `extra` whose model requests go to `round`; while the round waits for the client's model its
 * warnings are held back (a model that "failed" in this round is not a failure the client should see).
 */
export function withRound(extra: Extra, round: SamplingRound): Extra {
  return {
    ...extra,
    requestSampling: (params) => round.request(params),
    sendNotification: (n) =>
      round.waiting() && n.method === 'notifications/message' ? Promise.resolve() : extra.sendNotification(n),
  };
}
