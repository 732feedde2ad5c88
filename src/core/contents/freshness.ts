/**
 * Freshness: how `maxAgeHours`, the deprecated `livecrawl` and `compliance` decide between the cache
 * and a live fetch. The table is in docs/api.md ("Freshness").
 */

export type Freshness =
  /** `maxAgeHours: -1`, `livecrawl: never`, `compliance`: the cache answers or nothing does. */
  | { mode: 'cache-only' }
  /** `maxAgeHours: 0`, `livecrawl: always`: always fetch. */
  | { mode: 'live' }
  /** `maxAgeHours: n > 0`: the cache if younger than n hours, else fetch. */
  | { mode: 'max-age'; maxAgeMs: number }
  /** Omitted, `livecrawl: fallback`: the cache if there is a copy, else fetch. */
  | { mode: 'fallback' }
  /** `livecrawl: preferred`: fetch; if that fails, the cache. */
  | { mode: 'live-preferred' };

import { inComplianceMode } from '../compliance.js';

export interface FreshnessInput {
  maxAgeHours?: number | null;
  livecrawl?: 'never' | 'always' | 'fallback' | 'preferred' | null;
  compliance?: string | null;
}

/** Maps the request's options to one policy (the schema already refuses `livecrawl` with `maxAgeHours`). */
export function toFreshness(input: FreshnessInput): Freshness {
  if (inComplianceMode(input.compliance)) return { mode: 'cache-only' };
  const hours = input.maxAgeHours;
  if (hours != null) {
    if (hours < 0) return { mode: 'cache-only' };
    if (hours === 0) return { mode: 'live' };
    return { mode: 'max-age', maxAgeMs: hours * 3_600_000 };
  }
  switch (input.livecrawl) {
    case 'never':
      return { mode: 'cache-only' };
    case 'always':
      return { mode: 'live' };
    case 'preferred':
      return { mode: 'live-preferred' };
    default:
      return { mode: 'fallback' };
  }
}
