/**
 * Which language model writes for a call (the operator's, `TRAWL_MODEL_*`, or the calling MCP client's
 * own through sampling), how its failures are reported, and what its tokens cost the caller. One rule
 * for every model-written output (answers, summaries, plans).
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import { failureDetail, type ChatModel, type TokenUsage } from '../../providers/model/types.js';
import { priceOf, tokenCost, type ModelPrice } from './pricing.js';

export interface ModelChoice {
  /** The operator's model, if one is configured. */
  operator?: ChatModel;
  /** The calling client's model (`ctx.clientModel`), when the door can reach one. */
  client?: ChatModel;
  /** `TRAWL_MODEL_PREFER=client`: the client's model first, even when the operator configured one. */
  preferClient?: boolean;
}

/** The call a model writes for: its request id and its logger (which carries the id). */
export interface ModelCall {
  requestId: string;
  logger: Logger;
}

/**
 * The model for a call, or undefined when there is none. By default the operator's model, and the
 * client's only when none is configured; with `preferClient`, the other way round. Its failures are
 * reported for `call` (see `reportingFailures`).
 */
export function chooseModel(choice: ModelChoice, call: ModelCall): ChatModel | undefined {
  const model = choice.preferClient ? (choice.client ?? choice.operator) : (choice.operator ?? choice.client);
  return model && reportingFailures(model, call);
}

/**
 * `model` whose failures (`UNABLE_TO_GENERATE_RESPONSE`) are logged for `call` with what the provider
 * said (its `detail`: address, status, an excerpt of its answer, keys removed), and rethrown in safe
 * words that point to that log line: `the language model failed (HTTP 500); the server log has the
 * details under requestId …`. The provider's words never reach the caller.
 */
export function reportingFailures(model: ChatModel, call: ModelCall): ChatModel {
  const report = (err: unknown): unknown => {
    if (!(err instanceof ServiceError) || err.tag !== 'UNABLE_TO_GENERATE_RESPONSE') return err;
    call.logger.warn({ provider: model.provider, model: model.model, reason: failureDetail(err) }, 'language model failed'); // prettier-ignore
    const message = `${err.message}; the server log has the details under requestId ${call.requestId}`;
    return new ServiceError('UNABLE_TO_GENERATE_RESPONSE', message, { cause: err });
  };
  return {
    provider: model.provider,
    model: model.model,
    complete: (request, signal) =>
      model.complete(request, signal).catch((err: unknown) => {
        throw report(err);
      }),
    async *stream(request, signal) {
      try {
        yield* model.stream(request, signal);
      } catch (err) {
        throw report(err);
      }
    },
  };
}

/**
 * Dollars the caller pays for `usage` of `model`: its tokens at the configured or list price; nothing
 * for the client's own model (sampling), which the client pays for, not Trawl.
 */
export function modelCost(model: ChatModel, usage: TokenUsage, price?: Partial<ModelPrice>): number {
  return model.provider === 'mcp-sampling' ? 0 : tokenCost(usage, priceOf(model.model, price));
}
