/**
 * The search types a request names (the spec's `type`), from the index alone to the deepest research:
 * search/pipelines.ts gives each its pipeline, pricing.ts its price.
 */
export type SearchType = 'instant' | 'fast' | 'auto' | 'deep-lite' | 'deep' | 'deep-reasoning';
