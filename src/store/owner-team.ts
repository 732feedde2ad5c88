/**
 * The team a key-owned row is stamped with, in SQL: the owner key's team, else the default team (the
 * local stdio process, a key since deleted). The same rule the migrations that added `team_id` applied to
 * older rows (SQLite 18, PostgreSQL 15), so old and new rows agree. Works on both backends.
 */

/** The default team's id (core/access DEFAULT_TEAM_ID; the store does not import the core). */
export const DEFAULT_TEAM_SQL = "'team_default'";

/** A scalar subquery: the team of the API key whose id is the SQL parameter `param` (`@owner`, `$2`). */
export function teamOfKey(param: string): string {
  return `COALESCE((SELECT team_id FROM api_keys WHERE id = ${param}), ${DEFAULT_TEAM_SQL})`;
}
