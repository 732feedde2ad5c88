/** Beta tokens of the `Svc-Beta` request header, and how a request's set is read. */
import type { BetaRule } from './define-op.js';
import { wantsDynamicHighlights } from '../schemas/content-options.schema.js';

export const DYNAMIC_HIGHLIGHTS_BETA = 'dynamic-highlights-2026-08-28';
export const AGENT_MAX_EFFORT_BETA = 'agent-max-effort-2026-07-27';

/** Header names that carry beta tokens; `exa-beta` is what the Exa SDK sends. */
export const BETA_HEADERS = ['svc-beta', 'exa-beta'] as const;

/** The tokens of comma-separated header values, plus any always-on ones. */
export function parseBetas(values: (string | null | undefined)[], always: readonly string[] = []): Set<string> {
  const set = new Set(always);
  for (const value of values) {
    for (const token of value?.split(',') ?? []) {
      const t = token.trim();
      if (t) set.add(t);
    }
  }
  return set;
}

/** The dynamic-highlights gate, for an op whose highlights options sit at `field`. */
export function dynamicHighlightsRule<I>(field: string, highlightsOf: (input: I) => unknown): BetaRule<I> {
  return {
    token: DYNAMIC_HIGHLIGHTS_BETA,
    feature: 'dynamic highlights',
    field,
    uses: (input) => wantsDynamicHighlights(highlightsOf(input)),
  };
}
