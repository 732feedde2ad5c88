/**
 * Compliance mode (`compliance: "hipaa"`), defined once: a request in it is answered from what is stored
 * (the local index, cached pages and documents), never by a web-search or embeddings provider, a live
 * fetch or a model planning searches. Which teams may ask for it is the accounts rule (accounts.service.ts).
 */

/** Whether a request's `compliance` field puts it in compliance mode. */
export function inComplianceMode(compliance: string | null | undefined): boolean {
  return compliance != null && compliance !== '';
}

/** What compliance mode turns off in a search pipeline (src/core/search/pipelines.ts). */
export const COMPLIANCE_LIMITS = {
  providers: false,
  semantic: false,
  cacheOnly: true,
  plannedQueries: 0,
  followUpRounds: 0,
} as const;
