/**
 * The audit log: every change made to a team's accounts (keys made, revoked or rescoped; the team made,
 * blocked, its flags, credits or budget changed), by any door, the CLI included, with who made it and
 * when. The record is written in the transaction of the change (the repositories take it). A team's
 * admins read the records about their team; an operator (`admin`) reads every team's (core/access).
 */
import type { AuditRepo, AuditRow, NewAuditRecord } from '../../store/contracts/audit.js';
import { reachOf, teamFilter } from '../access/access.js';
import type { Caller } from '../context.js';
import { decodeCursor, toPage, type Page } from '../cursors.js';

/** One record as the admin routes and the CLI show it. */
export interface AuditRecord {
  at: string;
  /** The team acted on. */
  teamId: string;
  /** Who acted: a key (and its team), or the local process (the CLI: both null). */
  actor: { keyId: string | null; teamId: string | null };
  /** `keys.create`, `keys.revoke`, `keys.update`, `teams.create`, `teams.update`, `teams.credits`. */
  action: string;
  /** The key id or team id acted on. */
  target: string;
  /** What changed (scopes, flags, amounts); never a key or a secret. */
  detail: Record<string, unknown> | null;
}

/** The record of `action` on `target` of team `teamId` by `actor`, at `at`. */
export function auditEntry(
  actor: Caller | null,
  teamId: string,
  action: string,
  target: string,
  detail: Record<string, unknown> | null,
  at: Date,
): NewAuditRecord {
  return {
    at: at.toISOString(),
    team_id: teamId,
    actor_key_id: actor?.keyId ?? null,
    actor_team_id: actor?.teamId ?? null,
    action,
    target,
    detail: detail === null ? null : JSON.stringify(detail),
  };
}

const toRecord = (row: AuditRow): AuditRecord => ({
  at: row.at,
  teamId: row.team_id,
  actor: { keyId: row.actor_key_id, teamId: row.actor_team_id },
  action: row.action,
  target: row.target,
  detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
});

/** Reading the audit log. */
export interface AuditLog {
  /**
   * Records about the teams `actor` administers (of team `teamId` only, when given: one it reaches, as
   * `TeamsService.idOf` resolves it), newest first; paginate with `cursor`.
   */
  list(actor: Caller | null, query: { cursor?: string; limit: number; teamId?: string }): Promise<Page<AuditRecord>>;
}

/** The audit log over its repository. */
export function createAuditLog(repo: AuditRepo): AuditLog {
  return {
    async list(actor, query) {
      const teamId = teamFilter(reachOf(actor, 'audit')) ?? query.teamId;
      const rows = await repo.page({ teamId, before: decodeCursor('u', query.cursor), limit: query.limit + 1 });
      return toPage('u', rows, query.limit, toRecord);
    },
  };
}
