/**
 * The fetch plan: what the contents service reads for a set of targets (freshness as a typed mode, the
 * contents wanted, subpages), built once from a /contents request or a search's `contents`.
 */
import { toFreshness, type Freshness, type FreshnessInput } from './freshness.js';
import type { SummaryAsk } from './summary-prompt.js';
import type { ContentOptions } from './to-result.js';

/** The live-fetch timeout when a request names none (ms). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The contents of each page: what to read it with and what to make of it. */
export interface FetchOptions extends ContentOptions {
  /** Cache or live fetch (./freshness.ts). */
  freshness: Freshness;
  /** Each live fetch's timeout (ms). */
  timeoutMs: number;
  /** Same-site links read with each page, and the words that pick them. */
  subpages: number;
  subpageTarget?: string | string[] | null;
  summary?: boolean | SummaryAsk | null;
  /** The deprecated `context` string of every result's text. */
  context?: boolean | { maxCharacters?: number } | null;
  /** Drop results whose asked-for contents came back empty. */
  filterEmptyResults?: boolean | null;
}

/** One call of the contents service: its targets (URLs or document ids), in answer order, and how to read them. */
export interface FetchPlan extends FetchOptions {
  targets: string[];
  /** Characters of each page's text to skip (the MCP tool's reading offset). */
  offset?: number;
  /** The query results answer (a search's): the topic of highlights and summaries that name none. */
  searchQuery?: string;
  /** Model dollars spent on summaries are added here (a search prices them in its total). */
  spent?: { dollars: number };
}

/** Content options as a request writes them: /search's `contents`, or /contents without its targets. */
export interface ContentsRequest extends ContentOptions, FreshnessInput {
  summary?: boolean | SummaryAsk | null;
  context?: boolean | { maxCharacters?: number } | null;
  livecrawlTimeout?: number;
  subpages?: number;
  subpageTarget?: string | string[] | null;
  filterEmptyResults?: boolean | null;
}

/** A /contents request as validated (plus the MCP tool's reading offset). */
export interface ContentsWire extends ContentsRequest {
  ids?: string[];
  urls?: string[];
  offset?: number;
}

/**
 * The options of `request`. A request that names no freshness (no `maxAgeHours`, no `livecrawl`) reads
 * with `byDefault` (a search whose type is cache-only passes `cache-only`).
 */
export function fetchOptionsOf(request: ContentsRequest, byDefault?: Freshness): FetchOptions {
  const { maxAgeHours, livecrawl, compliance: _compliance, livecrawlTimeout, subpages, ...options } = request;
  const named = maxAgeHours !== undefined || Boolean(livecrawl) || request.compliance != null;
  return {
    ...options,
    freshness: !named && byDefault ? byDefault : toFreshness(request),
    timeoutMs: livecrawlTimeout ?? DEFAULT_TIMEOUT_MS,
    subpages: subpages ?? 0,
  };
}

/** The plan of a /contents request: its `urls` (or `ids`) read by its options. */
export function fetchPlanOf(request: ContentsWire): FetchPlan {
  const { urls, ids, offset, ...rest } = request;
  return { ...fetchOptionsOf(rest), targets: urls ?? ids ?? [], ...(offset !== undefined ? { offset } : {}) };
}
