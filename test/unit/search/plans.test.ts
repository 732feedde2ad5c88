// The typed plans the doors build once from a request: a search's SearchPlan (type, pipeline under
// compliance, filters, contents' freshness) and a /contents call's FetchPlan; the price bound reads the same plan.
import { describe, expect, it } from 'vitest';
import { searchBound } from '../../../src/core/accounts/bounds.js';
import { fetchOptionsOf, fetchPlanOf } from '../../../src/core/contents/fetch.plan.js';
import { createPrices } from '../../../src/core/pricing.js';
import { FILTER_FIELDS, filtersOf } from '../../../src/core/search/filters.js';
import { searchPlanOf } from '../../../src/core/search/search.plan.js';

describe('searchPlanOf', () => {
  it('resolves the type once: aliases, and auto when none is given', () => {
    expect(searchPlanOf({ query: 'q', numResults: 5, type: 'neural' }).type).toBe('auto');
    expect(searchPlanOf({ query: 'q', numResults: 5, type: 'keyword' }).type).toBe('fast');
    expect(searchPlanOf({ query: 'q', numResults: 5 }).type).toBe('auto');
  });

  it('applies compliance mode: no providers, no embeddings, no planning, cache-only contents and evidence', () => {
    const plan = searchPlanOf({
      query: 'q',
      numResults: 5,
      type: 'fast',
      compliance: 'hipaa',
      contents: { text: true },
    });
    expect(plan.compliance).toBe(true);
    expect(plan.pipeline).toMatchObject({ providers: false, semantic: false, cacheOnly: true, plannedQueries: 0 });
    expect(plan.contents?.freshness).toEqual({ mode: 'cache-only' });
    expect(plan.evidence).toEqual({ mode: 'cache-only' });
  });

  it('lets the request name its contents freshness over a cache-only type', () => {
    const plan = searchPlanOf({ query: 'q', numResults: 5, type: 'instant', contents: { text: true, maxAgeHours: 0 } });
    expect(plan.contents).toMatchObject({ freshness: { mode: 'live' }, timeoutMs: 10_000, subpages: 0 });
    expect(plan.evidence).toEqual({ mode: 'cache-only' });
  });

  it('keeps only the filter fields the request sets', () => {
    const plan = searchPlanOf({ query: 'q', numResults: 5, includeDomains: ['a.example'], moderation: true });
    expect(plan.filters).toEqual({ includeDomains: ['a.example'], moderation: true });
    expect(Object.keys(filtersOf({ category: 'news', query: 'x' } as never))).toEqual(['category']);
    expect(FILTER_FIELDS).toContain('excludeText');
  });

  it('prices planning only where the plan plans (never in compliance mode)', () => {
    const prices = createPrices();
    const deep = searchPlanOf({ query: 'q', numResults: 1, type: 'deep-reasoning' });
    // model calls counted: the bound with a one-dollar call less the bound with a free one
    const calls = (plan: typeof deep) =>
      searchBound(plan, { prices, modelCall: 1 }) - searchBound(plan, { prices, modelCall: 0 });
    expect(calls(deep)).toBeCloseTo(2, 9);
    expect(calls({ ...deep, answer: { shape: { type: 'text' } } })).toBeCloseTo(3, 9);
    expect(calls(searchPlanOf({ query: 'q', numResults: 1, type: 'deep-reasoning', compliance: 'hipaa' }))).toBeCloseTo(
      0,
      9,
    );
  });
});

describe('fetchPlanOf', () => {
  it('maps a /contents request to targets and a freshness mode once', () => {
    expect(fetchPlanOf({ urls: ['https://a.example/'], maxAgeHours: -1 })).toMatchObject({
      targets: ['https://a.example/'],
      freshness: { mode: 'cache-only' },
      timeoutMs: 10_000,
      subpages: 0,
    });
    expect(fetchPlanOf({ ids: ['x'], compliance: 'hipaa', maxAgeHours: 0 }).freshness).toEqual({ mode: 'cache-only' });
    expect(fetchPlanOf({ urls: ['u'], livecrawl: 'preferred', livecrawlTimeout: 5000 })).toMatchObject({
      freshness: { mode: 'live-preferred' },
      timeoutMs: 5000,
    });
  });

  it('reads with the default freshness only when the request names none', () => {
    expect(fetchOptionsOf({ text: true }, { mode: 'cache-only' }).freshness).toEqual({ mode: 'cache-only' });
    expect(fetchOptionsOf({ text: true, livecrawl: 'always' }, { mode: 'cache-only' }).freshness).toEqual({
      mode: 'live',
    });
    expect(fetchOptionsOf({ text: true }).freshness).toEqual({ mode: 'fallback' });
  });
});
