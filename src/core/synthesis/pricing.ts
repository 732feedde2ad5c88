/**
 * What model tokens cost, in dollars per million tokens: the operator's prices when set
 * (`TRAWL_MODEL_INPUT_PRICE`, `TRAWL_MODEL_OUTPUT_PRICE`), else the list price of well-known hosted
 * models, else nothing (a model the operator runs costs Trawl's callers nothing per token).
 */
import type { TokenUsage } from '../../providers/model/types.js';

export interface ModelPrice {
  /** Dollars per million input (prompt) tokens. */
  input: number;
  /** Dollars per million output (completion) tokens. */
  output: number;
}

/** List prices of hosted models by name prefix, longest prefix first (docs/synthesis.md). */
export const KNOWN_MODEL_PRICES: readonly (readonly [string, ModelPrice])[] = [
  ['gpt-4.1-nano', { input: 0.1, output: 0.4 }],
  ['gpt-4.1-mini', { input: 0.4, output: 1.6 }],
  ['gpt-4.1', { input: 2, output: 8 }],
  ['gpt-4o-mini', { input: 0.15, output: 0.6 }],
  ['gpt-4o', { input: 2.5, output: 10 }],
  ['gpt-5-nano', { input: 0.05, output: 0.4 }],
  ['gpt-5-mini', { input: 0.25, output: 2 }],
  ['gpt-5', { input: 1.25, output: 10 }],
  ['o4-mini', { input: 1.1, output: 4.4 }],
];

/** The price of `model`: the configured one, a known list price, or zero. */
export function priceOf(model: string, configured?: Partial<ModelPrice>): ModelPrice {
  const name = model.toLowerCase().replace(/^.*\//, ''); // gateway names: "openai/gpt-4o-mini"
  const known = KNOWN_MODEL_PRICES.find(([prefix]) => name.startsWith(prefix))?.[1];
  return {
    input: configured?.input ?? known?.input ?? 0,
    output: configured?.output ?? known?.output ?? 0,
  };
}

/** Dollars for `usage` at `price`, rounded to a millionth of a dollar. */
export function tokenCost(usage: TokenUsage, price: ModelPrice): number {
  return Math.round(((usage.inputTokens * price.input + usage.outputTokens * price.output) / 1e6) * 1e6) / 1e6;
}
