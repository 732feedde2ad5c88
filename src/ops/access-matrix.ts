/**
 * The authorization matrix: what each kind of caller gets from every operation (and every MCP method the
 * door declares, src/mcp/access.ts), derived from what each declares (the resource it acts on, how, and
 * the scope it needs) and from the core's one rule (src/core/access/access.ts). It is the document of who
 * may do what: docs/accounts.md#who-may-do-what is rendered from it (scripts/access-matrix.mjs), and
 * test/e2e/access-matrix.test.ts calls every cell through the real doors, on SQLite and PostgreSQL.
 */
import { RESOURCES } from '../core/access/access.js';
import { DEFAULT_SCOPES, hasScope, SCOPES, type Scope } from '../core/accounts/scopes.js';
import type { OpAccess } from './define-op.js';

/**
 * Who calls. Team A owns the resource; `owner` is the key of team A that made it. A later door (OAuth
 * tokens, console sessions) adds its callers here, and the matrix gains their columns.
 */
export const PRINCIPALS = ['owner', 'teammate', 'otherTeam', 'noScope', 'blocked', 'operator', 'none', 'x402'] as const;
export type Principal = (typeof PRINCIPALS)[number];

/** Each caller as a column of the table. */
export const PRINCIPAL_TITLES: Record<Principal, string> = {
  owner: 'owner key',
  teammate: 'another key, same team',
  otherTeam: 'key of another team',
  noScope: 'key without the scope',
  blocked: "blocked team's key",
  operator: 'operator key (admin)',
  none: 'no key',
  x402: 'x402 payment',
};

/** What each caller is, for the table's legend. */
export const PRINCIPAL_DOCS: Record<Principal, string> = {
  owner: 'the key of team A that made the resource; every scope but `admin` (so `admin:team` too)',
  teammate: 'another key of team A, made without `--scopes` (every scope but the admin ones)',
  otherTeam: 'a key of team B with every scope but `admin` (`admin:team` included)',
  noScope: 'a key of team A whose scopes do not include the one the operation needs',
  blocked: 'a key of a blocked team, every scope but `admin`',
  operator: 'a key of team B with every scope, `admin` included',
  none: 'no key at all',
  x402: 'no key, an x402 payment instead (`TRAWL_X402_RAILS`)',
};

/** The scopes of each keyed caller (`noScope` is given per entry: a scope other than the one needed). */
export const PRINCIPAL_SCOPES: Record<'owner' | 'teammate' | 'otherTeam' | 'blocked' | 'operator', readonly Scope[]> = {
  owner: SCOPES.filter((s) => s !== 'admin'),
  teammate: DEFAULT_SCOPES,
  otherTeam: SCOPES.filter((s) => s !== 'admin'),
  blocked: SCOPES.filter((s) => s !== 'admin'),
  operator: SCOPES,
};

/** The scope a `noScope` key holds for an entry that needs `needed`: any other one. */
export const otherScope = (needed: Scope | undefined): Scope => (needed === 'search' ? 'contents' : 'search');

/** One row: a REST route, an MCP tool (or one action of it) or an MCP method. */
export interface MatrixEntry {
  /** `GET /monitors/:id`, `monitors list`, `tasks/get`. */
  name: string;
  door: 'rest' | 'mcp';
  /** The scope it needs; none for MCP protocol methods (tasks, resources), which need only the key. */
  capability?: Scope;
  access: OpAccess;
  /** Whether it costs money (x402 can pay for a REST call of it without a key). */
  priced: boolean;
  /** The REST status of a success (201 for a create); MCP answers a result. */
  okStatus?: number;
  /**
   * Whether the call names one resource of team A (an id in its path, a team to make a key in); a list
   * or a create that names none acts on the caller's own.
   */
  targets: boolean;
}

/** What a caller gets: the answer (`own`: a list of the caller's own, without team A's), or the refusal's tag. */
export type Outcome =
  'ok' | 'own' | 'NOT_FOUND' | 'INSUFFICIENT_SCOPE' | 'TEAM_BLOCKED' | 'INVALID_API_KEY' | 'X402_PAYMENT_REQUIRED';

/** The scopes `who` holds for `entry` (undefined: no key). */
export function scopesFor(who: Principal, entry: Pick<MatrixEntry, 'capability'>): readonly Scope[] | undefined {
  if (who === 'none' || who === 'x402') return undefined;
  return who === 'noScope' ? [otherScope(entry.capability)] : PRINCIPAL_SCOPES[who];
}

/** Whether `who` reaches a resource of team A of the entry's kind (core/access's rule, per caller). */
function reachesTeamA(who: Principal, entry: MatrixEntry, scopes: readonly Scope[]): boolean {
  const ofTeamA = who === 'owner' || who === 'teammate' || who === 'noScope';
  switch (RESOURCES[entry.access.resource].sharing) {
    case 'everyone':
      return true;
    case 'team':
      return ofTeamA;
    case 'key':
      return who === 'owner';
    case 'teamAdmin':
    case 'operator':
      return ofTeamA || hasScope(scopes, 'admin');
  }
}

/** What `who` gets from `entry`; `x402`: whether the server takes x402 payments. */
export function expectedOutcome(entry: MatrixEntry, who: Principal, options: { x402: boolean }): Outcome {
  const scopes = scopesFor(who, entry);
  if (!scopes) {
    if (entry.door === 'rest' && entry.priced && options.x402) return who === 'x402' ? 'ok' : 'X402_PAYMENT_REQUIRED';
    return 'INVALID_API_KEY';
  }
  if (who === 'blocked') return 'TEAM_BLOCKED';
  if (entry.capability && !hasScope(scopes, entry.capability)) return 'INSUFFICIENT_SCOPE';
  const reached = reachesTeamA(who, entry, scopes);
  if (!entry.targets) return entry.access.verb === 'list' && !reached ? 'own' : 'ok';
  return reached ? 'ok' : 'NOT_FOUND';
}

/** A cell of the table: REST statuses, MCP results. */
function cell(outcome: Outcome, entry: MatrixEntry): string {
  const rest: Record<Outcome, string> = {
    ok: String(entry.okStatus ?? 200),
    own: '200, its own',
    NOT_FOUND: '404',
    INSUFFICIENT_SCOPE: '403 scope',
    TEAM_BLOCKED: '403 blocked',
    INVALID_API_KEY: '401',
    X402_PAYMENT_REQUIRED: '402',
  };
  if (entry.door === 'rest') return rest[outcome];
  const mcp: Partial<Record<Outcome, string>> = { ok: 'result', own: 'its own', NOT_FOUND: 'not found' };
  return mcp[outcome] ?? rest[outcome];
}

/** The matrix as Markdown tables, one per section, with the legend of the callers. */
export function renderMatrix(sections: readonly { title: string; entries: readonly MatrixEntry[] }[]): string {
  const head = `| | ${PRINCIPALS.map((p) => PRINCIPAL_TITLES[p]).join(' | ')} |`;
  const rule = `|${' --- |'.repeat(PRINCIPALS.length + 1)}`;
  const tables = sections.map(({ title, entries }) => {
    const rows = entries.map(
      (e) =>
        `| \`${e.name}\` (${e.access.resource}) | ${PRINCIPALS.map((p) => cell(expectedOutcome(e, p, { x402: true }), e)).join(' | ')} |`,
    );
    return [`**${title}**`, '', head, rule, ...rows].join('\n');
  });
  const legend = PRINCIPALS.map((p) => `- *${PRINCIPAL_TITLES[p]}*: ${PRINCIPAL_DOCS[p]}.`).join('\n');
  return [legend, ...tables].join('\n\n');
}
