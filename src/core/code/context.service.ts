/**
 * /context: the code snippets an agent needs for a question, from the code index (indexed folders,
 * repositories, packages, imports, and the code examples of stored documentation pages), ranked,
 * near-duplicates merged, as one formatted string within the token budget. docs/code-context.md.
 */
import type { ServiceContext } from '../context.js';
import type { CodeHit, CodeIndex } from './code-index.js';
import { formatContext, locationOf } from './format.js';
import { languagesInQuery } from './languages.js';
import { tokenCounter } from './tokens.js';

export interface ContextInput {
  query: string;
  tokensNum: number | 'dynamic';
}

export interface ContextOutput {
  requestId: string;
  query: string;
  response: string;
  resultsCount: number;
  costDollars: { total: number; search: { neural: number } };
  searchTime: number;
  outputTokens: number;
  /** Trawl's addition: where each snippet of `response` comes from, in order (docs/code-context.md). */
  sources: { location: string; symbol: string | null; language: string; lines: [number, number] }[];
}

export interface ContextService {
  run(input: ContextInput, ctx: ServiceContext): Promise<ContextOutput>;
}

/** Price of a /context request (the search price of the spec's table: a request of up to 10 results). */
export const CONTEXT_PRICE = 0.005;
/** Chunks read from the index before merging and fitting: enough to fill the largest budgets. */
const CANDIDATES = 60;

export function createContextService(deps: { code: CodeIndex }): ContextService {
  return {
    async run(input, ctx) {
      const started = performance.now();
      const { languages, rest } = languagesInQuery(input.query);
      // a query of language words only ("typescript") still searches for them
      const hits: CodeHit[] = deps.code.search(rest.trim() || input.query, { limit: CANDIDATES, languages });
      const count = await tokenCounter();
      const formatted = formatContext(hits, input.tokensNum, count);
      ctx.logger.debug({ candidates: hits.length, snippets: formatted.snippets.length }, 'code context');
      return {
        requestId: ctx.requestId,
        query: input.query,
        response: formatted.text,
        resultsCount: formatted.snippets.length,
        costDollars: { total: CONTEXT_PRICE, search: { neural: CONTEXT_PRICE } },
        searchTime: Math.round((performance.now() - started) * 100) / 100,
        outputTokens: formatted.tokens,
        sources: formatted.snippets.map((h) => ({
          location: locationOf(h),
          symbol: h.symbol,
          language: h.language,
          lines: [h.startLine, h.endLine],
        })),
      };
    },
  };
}
