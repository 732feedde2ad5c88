/**
 * Who may act on what: the owner of every stored resource and the one rule that checks a caller against
 * it. Services ask here before they read, list, change or delete; a resource the caller does not reach
 * is NOT_FOUND, never "forbidden", so another team cannot learn that it exists. The operations declare
 * which resource each acts on (src/ops/define-op.ts `access`), and the authorization matrix
 * (docs/accounts.md#who-may-do-what) is drawn from both.
 */
import { ServiceError } from '../../errors.js';
import { hasScope } from './scopes.js';
import type { Caller } from '../context.js';

/** The team a resource made without a key belongs to (the local process, the CLI, rows older than owners). */
export const DEFAULT_TEAM_ID = 'team_default';
/** The key id that stands for the local process (stdio MCP, the CLI) as an owner. */
export const LOCAL_KEY_ID = 'local';

/**
 * How far a resource is shared:
 * - `everyone`: every key of every team with the scope (the documents and code indexes);
 * - `team`: every key of the owning team (monitors, their runs and deliveries);
 * - `key`: the owning key alone (agent runs, MCP tasks, answer snapshots);
 * - `teamAdmin`: keys with `admin:team` of the owning team, and `admin` keys of any team (keys, usage, audit);
 * - `operator`: `admin` keys only (the teams themselves, credits, flags, the installation's status).
 * The local process (no key) is the operator: it reaches everything, but as an owner of key-shared
 * resources it is one key of its own (`local`), so its agent runs and tasks stay apart from the keys'.
 */
export type Sharing = 'everyone' | 'team' | 'key' | 'teamAdmin' | 'operator';

/** Every kind of stored resource, how far it is shared, and what it is (for the docs). */
export const RESOURCES = {
  index: { sharing: 'everyone', what: 'stored pages and indexed code (written by fetches and the CLI)' },
  monitor: { sharing: 'team', what: 'a monitor with its runs and webhook deliveries' },
  agentRun: { sharing: 'key', what: 'an agent run with its events' },
  mcpTask: { sharing: 'key', what: 'an MCP task and its result' },
  snapshot: { sharing: 'key', what: 'an MCP answer kept for its cursor' },
  apiKey: { sharing: 'teamAdmin', what: "a team's API keys" },
  usage: { sharing: 'teamAdmin', what: "a team's spend" },
  audit: { sharing: 'teamAdmin', what: "the audit records of changes made to a team's accounts" },
  team: { sharing: 'teamAdmin', what: 'a team as it is shown (flags, credits, budget)' },
  installation: { sharing: 'operator', what: 'teams, their flags, credits and budgets; the status report' },
  crawlJob: { sharing: 'operator', what: 'a crawl (the CLI only)' },
  operatorJob: { sharing: 'operator', what: 'a crawl, import or code index started from the console' },
} as const satisfies Record<string, { sharing: Sharing; what: string }>;

/** One kind of stored resource. */
export type ResourceKind = keyof typeof RESOURCES;

/** Who owns a resource: a team, and the key that made it (null: made by the local process or the CLI). */
export interface Owner {
  teamId: string;
  keyId: string | null;
}

/**
 * What a caller reaches of one kind of resource: all of it, or what one team owns (and, for resources
 * shared by key, what one key of it owns). Lists filter by it; reads and changes check a row with it.
 */
export type Reach = { all: true } | { all: false; teamId: string; keyId?: string };

const ALL: Reach = { all: true };

/** The owner a new resource of `caller` gets. */
export function ownerOf(caller: Caller | null): Owner {
  return caller ? { teamId: caller.teamId, keyId: caller.keyId } : { teamId: DEFAULT_TEAM_ID, keyId: null };
}

/** The key id an owner of a key-shared resource is stored with: the key's, or `local`. */
export function ownerKeyId(caller: Caller | null): string {
  return caller?.keyId ?? LOCAL_KEY_ID;
}

/** What `caller` (null: the local process) reaches of `kind`. */
export function reachOf(caller: Caller | null, kind: ResourceKind): Reach {
  const sharing: Sharing = RESOURCES[kind].sharing;
  if (!caller) return sharing === 'key' ? { all: false, teamId: DEFAULT_TEAM_ID, keyId: LOCAL_KEY_ID } : ALL;
  switch (sharing) {
    case 'everyone':
      return ALL;
    case 'team':
      return { all: false, teamId: caller.teamId };
    case 'key':
      return { all: false, teamId: caller.teamId, keyId: caller.keyId };
    case 'teamAdmin':
    case 'operator':
      // the operations' scopes refuse a key without admin:team (or admin) before a service is asked
      return hasScope(caller.scopes, 'admin') ? ALL : { all: false, teamId: caller.teamId };
  }
}

/** Whether `reach` covers a resource owned by `owner`. */
export function reaches(reach: Reach, owner: Owner): boolean {
  if (reach.all) return true;
  if (owner.teamId !== reach.teamId) return false;
  return reach.keyId === undefined || (owner.keyId ?? LOCAL_KEY_ID) === reach.keyId;
}

/**
 * The resource `found` when `caller` reaches it; NOT_FOUND naming `what` when it does not exist or
 * belongs to someone the caller does not reach (the two are told apart nowhere).
 */
export function owned<T>(
  caller: Caller | null,
  kind: ResourceKind,
  found: T | undefined,
  ownerOfRow: (row: T) => Owner,
  what: string,
): T {
  if (found !== undefined && reaches(reachOf(caller, kind), ownerOfRow(found))) return found;
  throw new ServiceError('NOT_FOUND', `${what} not found`);
}

/** The team a caller's list is limited to (undefined: every team), for stores that filter by team. */
export function teamFilter(reach: Reach): string | undefined {
  return reach.all ? undefined : reach.teamId;
}

/** Whether `caller` acts on a team other than its own (an operator key; the local process counts as such). */
export function actsAcrossTeams(caller: Caller | null, teamId: string): boolean {
  return caller === null || caller.teamId !== teamId;
}
