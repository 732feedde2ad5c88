/**
 * What a search costs, from one price table that follows the spec's: contents are included for the
 * first 10 results of a search and cost $1 per 1000 pages beyond. docs/search.md states every price.
 */
import type { SearchType } from './pipelines.js';

export const PRICES = {
  /** A search of 1–10 results (instant, fast, auto). */
  neuralSearch_1_10_results: 0.005,
  /** Each result beyond the 10th. */
  neuralSearch_additional_result: 0.0005,
  /** A deep-lite or deep search (1–10 results; more results as above). */
  deepSearch: 0.015,
  /** A deep-reasoning search. */
  deepReasoningSearch: 0.03,
  /** Per page of contents beyond the included ten: text, highlights, summary. */
  contentText: 0.001,
  contentHighlight: 0.001,
  contentSummary: 0.001,
} as const;

/** Results whose contents a search includes in its price. */
export const INCLUDED_CONTENT_RESULTS = 10;

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/** The base price of a search of `type` returning `results` results. */
export function searchPrice(type: SearchType, results: number): number {
  const base =
    type === 'deep-reasoning'
      ? PRICES.deepReasoningSearch
      : type === 'deep' || type === 'deep-lite'
        ? PRICES.deepSearch
        : PRICES.neuralSearch_1_10_results;
  return base + Math.max(0, results - 10) * PRICES.neuralSearch_additional_result;
}

/** The contents part: per page beyond the included ten, per kind of content asked for. */
export function contentsPrice(
  results: number,
  contents: { text?: unknown; highlights?: unknown; summary?: unknown } | undefined,
) {
  const pages = Math.max(0, results - INCLUDED_CONTENT_RESULTS);
  const text = contents?.text ? pages * PRICES.contentText : 0;
  const highlights = contents?.highlights ? pages * PRICES.contentHighlight : 0;
  const summary = contents?.summary ? pages * PRICES.contentSummary : 0;
  return { text, highlights, summary, total: text + highlights + summary };
}

/** `costDollars.total` of a search. */
export function searchCost(
  type: SearchType,
  results: number,
  contents: { text?: unknown; highlights?: unknown; summary?: unknown } | undefined,
): number {
  return round(searchPrice(type, results) + contentsPrice(results, contents).total);
}
