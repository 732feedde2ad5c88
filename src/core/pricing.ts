/**
 * The one price table: what every priced operation costs, in dollars. The defaults are the spec's
 * prices where it gives them (searches, contents beyond ten results at $1 per 1000 pages, agent effort
 * levels, compute units, search calls, contact enrichments) and Trawl's documented choices for the rest;
 * an operator overrides any entry with `TRAWL_PRICES` (docs/accounts.md). Model tokens are priced
 * separately (src/core/synthesis/pricing.ts).
 */
import type { SearchType } from './search-types.js';

export const DEFAULT_PRICES = {
  /** A search of 1–10 results (instant, fast, auto); also `/findSimilar`. */
  neuralSearch_1_10_results: 0.005,
  /** Each search result beyond the 10th. */
  neuralSearch_additional_result: 0.0005,
  /** A deep-lite or deep search (1–10 results; more results as above). */
  deepSearch: 0.015,
  /** A deep-reasoning search. */
  deepReasoningSearch: 0.03,
  /** Per search result beyond the included ten, per kind of content: text, highlights, summary. */
  contentText: 0.001,
  contentHighlight: 0.001,
  contentSummary: 0.001,
  /** A `/contents` page (each URL and each subpage): $1 per 1000 pages. */
  contentsPage: 0.001,
  /** A `/context` call (priced as a search of 1–10 results). */
  codeContext: 0.005,
  /** Agent runs: a compute unit, a search tool call, an email and a phone contact enrichment. */
  agentComputeUnit: 0.1,
  agentSearchCall: 0.005,
  agentEmailEnrichment: 0.02,
  agentPhoneEnrichment: 0.07,
  /** Agent runs at a fixed effort, per request. */
  agentEffortMinimal: 0.012,
  agentEffortLow: 0.025,
  agentEffortMedium: 0.1,
  agentEffortHigh: 0.5,
  agentEffortXhigh: 1,
  /** The default cost caps of the metered efforts `auto` and `max`. */
  agentAutoCap: 5,
  agentMaxCap: 20,
} as const;

export type PriceName = keyof typeof DEFAULT_PRICES;
export type Prices = Readonly<Record<PriceName, number>>;

/** The defaults with the operator's overrides. */
export function createPrices(overrides: Partial<Record<PriceName, number>> = {}): Prices {
  return Object.freeze({ ...DEFAULT_PRICES, ...overrides });
}

/** Results whose contents a search includes in its price. */
export const INCLUDED_CONTENT_RESULTS = 10;

export const roundDollars = (n: number) => Math.round(n * 1e6) / 1e6;

type Contents = { text?: unknown; highlights?: unknown; summary?: unknown } | undefined;

/** The base price of a search of `type` returning `results` results. */
export function searchPrice(prices: Prices, type: SearchType, results: number): number {
  const base =
    type === 'deep-reasoning'
      ? prices.deepReasoningSearch
      : type === 'deep' || type === 'deep-lite'
        ? prices.deepSearch
        : prices.neuralSearch_1_10_results;
  return base + Math.max(0, results - 10) * prices.neuralSearch_additional_result;
}

/** The contents part of a search: per result beyond the included ten, per kind of content asked for. */
export function contentsPrice(prices: Prices, results: number, contents: Contents) {
  const pages = Math.max(0, results - INCLUDED_CONTENT_RESULTS);
  const text = contents?.text ? pages * prices.contentText : 0;
  const highlights = contents?.highlights ? pages * prices.contentHighlight : 0;
  const summary = contents?.summary ? pages * prices.contentSummary : 0;
  return { text, highlights, summary, total: text + highlights + summary };
}

/** `costDollars.total` of a search (before model tokens). */
export function searchCost(prices: Prices, type: SearchType, results: number, contents: Contents): number {
  return roundDollars(searchPrice(prices, type, results) + contentsPrice(prices, results, contents).total);
}

/**
 * The spec's `/findSimilar` cost object, from the same table: the search, contents beyond the included
 * ten, and model-written summaries (in the total).
 */
export function similarCost(prices: Prices, results: number, contents: Contents, summaryDollars = 0) {
  const search = searchPrice(prices, 'auto', results);
  const c = contentsPrice(prices, results, contents);
  return {
    total: roundDollars(search + c.total + summaryDollars),
    breakDown: [
      {
        search,
        contents: c.total,
        breakdown: {
          neuralSearch: search,
          deepSearch: 0,
          contentText: c.text,
          contentHighlight: c.highlights,
          contentSummary: c.summary,
        },
      },
    ],
    perRequestPrices: {
      neuralSearch_1_10_results: prices.neuralSearch_1_10_results,
      neuralSearch_additional_result: prices.neuralSearch_additional_result,
      deepSearch: prices.deepSearch,
      deepReasoningSearch: prices.deepReasoningSearch,
    },
    perPagePrices: {
      contentText: prices.contentText,
      contentHighlight: prices.contentHighlight,
      contentSummary: prices.contentSummary,
    },
  };
}
