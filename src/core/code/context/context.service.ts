/**
 * /context: the code snippets an agent needs for a question, from the code index (indexed folders,
 * repositories, packages, imports, and the code examples of stored documentation pages), ranked,
 * near-duplicates merged, as one formatted string within the token budget. docs/code-context.md.
 */
import type { ServiceContext } from '../../context.js';
import type { Prices } from '../../pricing.js';
import type { SemanticSearch } from '../../search/semantic.js';
import type { CodeHit, CodeIndex } from '../index/code-index.js';
import type { CodeVectors } from '../index/code-vectors.js';
import type { CodeModelLoader } from '../model/shipped-model.js';
import { warning } from '../../warnings.js';
import { formatContext, locationOf } from './format.js';
import { fuseScores, MODEL_WEIGHT } from './fuse-scores.js';
import { languagesInQuery } from '../chunk/languages.js';
import { tokenCounter } from '../../../lib/tokens.js';

/** A /context question and its token budget. */
export interface ContextInput {
  query: string;
  tokensNum: number | 'dynamic';
}

/** The /context answer: the formatted snippets, their sources, cost and timing. */
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

/** Answers /context from the code index. */
export interface ContextService {
  run(input: ContextInput, ctx: ServiceContext): Promise<ContextOutput>;
}

/** Chunks read from the index before merging and fitting: enough to fill the largest budgets. */
const CANDIDATES = 60;
/** The code model's nearest chunks fused with the lexical list. */
const DENSE_CANDIDATES = 100;

/** What the context service reads: the code index, the semantic search, prices. */
export interface ContextDeps {
  code: CodeIndex;
  /** The price table (src/core/pricing.ts): a call costs `codeContext`. */
  prices: Prices;
  /** Nearest chunks by embeddings, when an embeddings provider is configured. */
  semantic?: SemanticSearch;
  /** Bounds the embeddings call of a query (the operator's provider timeout). */
  providerTimeoutMs: number;
  /** Trawl's code model and its vectors (used when no embeddings provider is configured). */
  model?: { loader: CodeModelLoader; vectors: CodeVectors };
}

/** Lexical and semantic lists fused by reciprocal rank (k = 60), by chunk location; scores are the fused ones. */
export function fuseHits(lists: CodeHit[][]): CodeHit[] {
  const byKey = new Map<string, CodeHit>();
  for (const list of lists) {
    list.forEach((h, rank) => {
      const key = `${h.source}\u0000${h.path}\u0000${h.startLine}`;
      const fused = (byKey.get(key)?.score ?? 0) + 1 / (60 + rank + 1);
      byKey.set(key, { ...(byKey.get(key) ?? h), score: fused });
    });
  }
  return [...byKey.values()].sort((a, b) => b.score - a.score);
}

/** The context service: lexical (and semantic, when configured) hits fused, merged and fitted. */
export function createContextService(deps: ContextDeps): ContextService {
  /** The chunks nearest the query by embeddings; a failing or slow provider leaves them out, with a warning. */
  const nearest = async (query: string, ctx: ServiceContext): Promise<CodeHit[]> => {
    if (!deps.semantic) return [];
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(deps.providerTimeoutMs)]);
    try {
      return deps.code.hitsByIds(await deps.semantic.nearest(query, CANDIDATES, signal));
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      ctx.logger.warn(
        { reason: (err as Error).message },
        'semantic code search failed; answering with lexical ranking',
      );
      return [];
    }
  };
  /**
   * The lexical list fused with the code model's nearest chunks (fuse-scores.ts); the lexical list alone,
   * with a warning, when the model cannot be loaded.
   */
  const hybrid = (query: string, lexical: CodeHit[], ctx: ServiceContext): CodeHit[] => {
    if (!deps.model) return lexical;
    const dense = deps.model.vectors.nearest(query, DENSE_CANDIDATES);
    if (dense === null) {
      if (deps.model.loader.state().state === 'missing') ctx.onWarning?.(warning('CODE_MODEL_MISSING'));
      return lexical;
    }
    const fused = fuseScores(
      lexical.map((h) => ({ key: h.id, score: h.score })),
      dense.map((h) => ({ key: h.id, cosine: h.cosine })),
      MODEL_WEIGHT,
    ).slice(0, CANDIDATES);
    const known = new Map(lexical.map((h) => [h.id, h]));
    const more = new Map(deps.code.hitsByIds(fused.filter((f) => !known.has(f.key)).map((f) => f.key)).map((h) => [h.id, h])); // prettier-ignore
    return fused.flatMap((f) => {
      const hit = known.get(f.key) ?? more.get(f.key);
      return hit ? [{ ...hit, score: f.score }] : [];
    });
  };
  return {
    async run(input, ctx) {
      const started = performance.now();
      const { languages, rest } = languagesInQuery(input.query);
      // a query of language words only ("typescript") still searches for them
      const query = rest.trim() || input.query;
      const lexical: CodeHit[] = deps.code.search(query, { limit: CANDIDATES, languages });
      const semantic = await nearest(query, ctx);
      const hits = deps.semantic
        ? semantic.length > 0
          ? fuseHits([lexical, semantic])
          : lexical
        : hybrid(query, lexical, ctx);
      const count = await tokenCounter();
      const formatted = formatContext(hits, input.tokensNum, count);
      ctx.logger.debug({ candidates: hits.length, snippets: formatted.snippets.length }, 'code context');
      return {
        requestId: ctx.requestId,
        query: input.query,
        response: formatted.text,
        resultsCount: formatted.snippets.length,
        costDollars: { total: deps.prices.codeContext, search: { neural: deps.prices.codeContext } },
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
