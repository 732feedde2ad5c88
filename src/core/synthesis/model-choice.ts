/**
 * Which language model writes for a call (the operator's, `TRAWL_MODEL_*`, or the calling MCP client's
 * own through sampling) and what its tokens cost the caller. One rule for every model-written output
 * (answers, summaries).
 */
import type { ChatModel, TokenUsage } from '../../providers/model/types.js';
import { priceOf, tokenCost, type ModelPrice } from './pricing.js';

export interface ModelChoice {
  /** The operator's model, if one is configured. */
  operator?: ChatModel;
  /** The calling client's model (`ctx.clientModel`), when the door can reach one. */
  client?: ChatModel;
  /** `TRAWL_MODEL_PREFER=client`: the client's model first, even when the operator configured one. */
  preferClient?: boolean;
}

/**
 * The model for a call, or undefined when there is none. By default the operator's model, and the
 * client's only when none is configured; with `preferClient`, the other way round.
 */
export function chooseModel(choice: ModelChoice): ChatModel | undefined {
  return choice.preferClient ? (choice.client ?? choice.operator) : (choice.operator ?? choice.client);
}

/**
 * Dollars the caller pays for `usage` of `model`: its tokens at the configured or list price; nothing
 * for the client's own model (sampling), which the client pays for, not Trawl.
 */
export function modelCost(model: ChatModel, usage: TokenUsage, price?: Partial<ModelPrice>): number {
  return model.provider === 'mcp-sampling' ? 0 : tokenCost(usage, priceOf(model.model, price));
}
