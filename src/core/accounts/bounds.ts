/**
 * The most a request can cost, from its input alone, for the money a request holds while it runs
 * (./meter.ts). Prices are the price table's; each model call is bounded by 32,000 prompt and 4,096
 * answer tokens at the operator model's price (a client's own model, through MCP sampling, costs
 * nothing). A request is charged what it really cost, never more than its bound (docs/accounts.md).
 */
import type { ChatModel } from '../../providers/model/types.js';
import { searchCost, similarCost, type Prices } from '../pricing.js';
import type { FetchPlan } from '../contents/fetch.plan.js';
import type { SearchPlan } from '../search/search.plan.js';
import { answerSearchPlan } from '../search/answer.service.js';
import { modelCost } from '../synthesis/model-choice.js';
import type { ModelPrice } from '../synthesis/pricing.js';

/** The tokens one model call is assumed to take at most. */
export const MODEL_CALL_TOKENS = { inputTokens: 32_000, outputTokens: 4_096 };

/** Dollars one call of the operator's model costs at most; 0 without one. */
export function modelCallBound(model: ChatModel | undefined, price?: Partial<ModelPrice>): number {
  return model ? modelCost(model, MODEL_CALL_TOKENS, price) : 0;
}

type Contents = { text?: unknown; highlights?: unknown; summary?: unknown; subpages?: number } | undefined;

/** What a bound is computed with: the price table, and what one model call costs at most. */
export interface Pricing {
  prices: Prices;
  modelCall: number;
}

/** Model calls of summaries: one per page, subpages included. */
const summaryCalls = (pages: number, contents: Contents) =>
  contents?.summary ? pages * (1 + (contents.subpages ?? 0)) : 0;

/** A search: its planning rounds (none in compliance mode), its answer and its summaries, at most. */
export function searchBound(
  plan: Pick<SearchPlan, 'type' | 'pipeline' | 'numResults' | 'contents' | 'answer'>,
  { prices, modelCall }: Pricing,
): number {
  const { type, pipeline } = plan;
  const planning = pipeline.plannedQueries > 0 ? 1 + pipeline.followUpRounds : 0;
  const answer = plan.answer ? 1 : 0;
  const calls = planning + answer + summaryCalls(plan.numResults, plan.contents);
  return searchCost(prices, type, plan.numResults, plan.contents) + calls * modelCall;
}

/**
 * /answer: an `auto` search of the results an answer reads (their text included), and its model calls:
 * one, or two for an object answer (it may be repaired once).
 */
export function answerBound(
  input: { text?: boolean; outputSchema?: { type?: string } },
  { prices, modelCall }: Pricing,
): number {
  const calls = input.outputSchema?.type === 'object' ? 2 : 1;
  const search = answerSearchPlan({ query: '', withText: Boolean(input.text) });
  return searchCost(prices, search.type, search.numResults, search.contents) + calls * modelCall;
}

export function similarBound(
  input: { numResults: number; contents?: Contents },
  { prices, modelCall }: Pricing,
): number {
  const summaries = summaryCalls(input.numResults, input.contents);
  return similarCost(prices, input.numResults, input.contents).total + summaries * modelCall;
}

/** A /contents call: each target and its subpages, and a summary of each when asked. */
export function contentsBound(
  plan: Pick<FetchPlan, 'targets' | 'subpages' | 'summary'>,
  { prices, modelCall }: Pricing,
): number {
  const pages = plan.targets.length * (1 + plan.subpages);
  return pages * prices.contentsPage + (plan.summary ? pages * modelCall : 0);
}

export const contextBound = (_input: unknown, { prices }: Pricing): number => prices.codeContext;
