/**
 * Administration over REST (not MCP tools): a team's own keys, usage and audit records (`admin:team`,
 * or `admin` for every team), and the installation's teams, credits, flags and status (`admin` only), as
 * `trawl teams|keys|credits|usage|audit` and `trawl doctor` do on the command line (docs/accounts.md).
 * The services check the caller against each team (src/core/access) and audit every change.
 */
import { toMicros } from '../core/accounts/money.js';
import type { TeamOptions } from '../core/accounts/teams.service.js';
import {
  AddCreditsRequest,
  ApiKey,
  ApiKeyList,
  CreateKeyRequest,
  CreatedApiKey,
  CreateTeamRequest,
  KeyParams,
  Team,
  TeamList,
  TeamParams,
  UpdateTeamRequest,
  UpdateKeyRequest,
  UsageQuery,
  UsageReport,
  AuditList,
  AuditQuery,
} from '../schemas/admin.schema.js';
import { StatusReport } from '../schemas/status.schema.js';
import { defineOp } from './define-op.js';
import { actingOn, byId } from './families.js';
import { plainAnswer } from './reply.js';
import { renderRecord } from './render.js';

const REST_ONLY = { restOnly: true };
/**
 * A team's own accounts, its keys, usage and audit records (and the teams a key sees): a key with
 * `admin:team` manages its team's, one with `admin` every team's.
 */
const teams = actingOn('admin:team', 'team', REST_ONLY);
const apiKeys = actingOn('admin:team', 'apiKey', REST_ONLY);
const usage = actingOn('admin:team', 'usage', REST_ONLY);
const audit = actingOn('admin:team', 'audit', REST_ONLY);
/** The installation's: teams, their flags, credits and budgets, the status report (`admin` only). */
const installation = actingOn('admin', 'installation', REST_ONLY);
const json = (title: string) => (out: unknown) =>
  plainAnswer(renderRecord(title, out as Record<string, unknown>), out as Record<string, unknown>);

type Budget = { amount: number; period: 'day' | 'month' } | null | undefined;
const budgetOf = (b: Budget) =>
  b === undefined ? undefined : b === null ? null : { micros: toMicros(b.amount), period: b.period };

/** GET /admin/teams. */
export const listTeamsOp = defineOp({
  ...teams.list,
  name: 'admin.teams.list',
  tool: 'admin_list_teams',
  title: 'List teams',
  description: "Teams with their flags, credits and budgets (a team admin's key: its own team).",
  route: { method: 'GET', path: '/admin/teams' },
  output: TeamList,
  render: json('Teams'),
  uses: ['accounts'],
  run: async (services, _input, ctx) => ({ data: await services.accounts.teams.list(ctx.caller) }),
});

/** POST /admin/teams. */
export const createTeamOp = defineOp({
  ...installation.create,
  name: 'admin.teams.create',
  tool: 'admin_create_team',
  title: 'Create a team',
  description: 'A team, optionally enterprise or zero-retention, with credits and a budget.',
  route: { method: 'POST', path: '/admin/teams' },
  body: CreateTeamRequest,
  output: Team,
  successStatus: 201,
  render: json('Team created'),
  uses: ['accounts'],
  run: (services, input, ctx) => {
    const options: TeamOptions = {
      enterprise: input.enterprise,
      zeroRetention: input.zeroRetention,
      credits: input.credits === undefined ? undefined : toMicros(input.credits),
      budget: budgetOf(input.budget),
    };
    return services.accounts.teams.create(input.name, options, ctx.caller);
  },
});

/** PATCH /admin/teams/:team. */
export const updateTeamOp = defineOp({
  ...installation.change,
  name: 'admin.teams.update',
  tool: 'admin_update_team',
  title: 'Update a team',
  description: 'Block or unblock a team, change its flags, credits or budget.',
  route: { method: 'PATCH', path: '/admin/teams/:team' },
  params: TeamParams,
  body: UpdateTeamRequest,
  output: Team,
  render: json('Team updated'),
  uses: ['accounts'],
  run: async (services, { team, blocked, credits, budget, ...flags }, ctx) => {
    const teams = services.accounts.teams;
    if (blocked !== undefined) await (blocked ? teams.block : teams.unblock)(team, ctx.caller);
    const options: TeamOptions = {
      ...flags,
      credits: credits === undefined ? undefined : credits === null ? null : toMicros(credits),
      budget: budgetOf(budget),
    };
    return teams.update(team, options, ctx.caller);
  },
});

/** POST /admin/teams/:team/credits. */
export const addCreditsOp = defineOp({
  ...installation.change,
  name: 'admin.teams.credits',
  tool: 'admin_add_credits',
  title: 'Add credits',
  description: "Add dollars to a team's credits (a team without a credit limit gets one, starting from zero).",
  route: { method: 'POST', path: '/admin/teams/:team/credits' },
  params: TeamParams,
  body: AddCreditsRequest,
  output: Team,
  render: json('Credits added'),
  uses: ['accounts'],
  run: (services, input, ctx) => services.accounts.teams.addCredits(input.team, toMicros(input.amount), ctx.caller),
});

/** GET /admin/keys. */
export const listKeysOp = defineOp({
  ...apiKeys.list,
  name: 'admin.keys.list',
  tool: 'admin_list_keys',
  title: 'List API keys',
  description: "Keys with their team, scopes, budget and status (a team admin's key: its own team's); never the keys.",
  route: { method: 'GET', path: '/admin/keys' },
  output: ApiKeyList,
  render: json('API keys'),
  uses: ['keys'],
  run: async (services, _input, ctx) => ({ data: await services.keys.list(ctx.caller) }),
});

/** POST /admin/keys. */
export const createKeyOp = defineOp({
  ...apiKeys.create,
  name: 'admin.keys.create',
  tool: 'admin_create_key',
  title: 'Create an API key',
  description: 'A key for a team, with scopes, a budget and a request rate; the key is shown only here.',
  route: { method: 'POST', path: '/admin/keys' },
  body: CreateKeyRequest,
  output: CreatedApiKey,
  successStatus: 201,
  render: json('API key created'),
  uses: ['accounts', 'keys'],
  run: async (services, input, ctx) =>
    services.keys.create(
      input.name,
      {
        teamId: input.team === undefined ? undefined : await services.accounts.teams.idOf(input.team, ctx.caller),
        scopes: input.scopes,
        budget: budgetOf(input.budget) ?? undefined,
        qps: input.qps,
      },
      ctx.caller,
    ),
});

/** DELETE /admin/keys/:id. */
export const revokeKeyOp = defineOp({
  ...apiKeys.delete,
  name: 'admin.keys.revoke',
  tool: 'admin_revoke_key',
  title: 'Revoke an API key',
  description: 'Revoke a key at once, in every process.',
  route: { method: 'DELETE', path: '/admin/keys/:id' },
  params: KeyParams,
  output: ApiKey,
  render: json('API key revoked'),
  uses: ['keys'],
  run: byId('keys', 'revoke'),
});

/** PATCH /admin/keys/:id. */
export const updateKeyOp = defineOp({
  ...apiKeys.change,
  name: 'admin.keys.update',
  tool: 'admin_update_key',
  title: 'Change the scopes of an API key',
  description:
    "Replace a key's scopes (to narrow a key that holds admin, say); a team admin grants only scopes it holds.",
  route: { method: 'PATCH', path: '/admin/keys/:id' },
  params: KeyParams,
  body: UpdateKeyRequest,
  output: ApiKey,
  render: json('API key updated'),
  uses: ['keys'],
  run: (services, input, ctx) => services.keys.setScopes(input.id, input.scopes, ctx.caller),
});

/** GET /admin/usage. */
export const usageOp = defineOp({
  ...usage.list,
  name: 'admin.usage',
  tool: 'admin_usage',
  title: 'Usage',
  description: "What each key and team spent over the last N UTC days, by operation (a team admin's key: its team).",
  route: { method: 'GET', path: '/admin/usage' },
  query: UsageQuery,
  output: UsageReport,
  render: json('Usage'),
  uses: ['accounts'],
  run: async (services, input, ctx) => {
    const since = ctx.clock.now().getTime() - (input.days - 1) * 86_400_000;
    const data = await services.accounts.teams.usage(since, ctx.caller);
    return { since: new Date(since).toISOString().slice(0, 10), data };
  },
});

/** GET /admin/audit. */
export const auditOp = defineOp({
  ...audit.list,
  name: 'admin.audit',
  tool: 'admin_audit',
  title: 'Audit records',
  description:
    "Changes made to the team's accounts (keys made, revoked or rescoped; flags, credits, budget), who made them " +
    'and when, newest first (an operator key: every team).',
  route: { method: 'GET', path: '/admin/audit' },
  query: AuditQuery,
  output: AuditList,
  render: json('Audit records'),
  uses: ['accounts', 'audit'],
  run: async (services, { team, ...page }, ctx) => {
    const teamId = team === undefined ? undefined : await services.accounts.teams.idOf(team, ctx.caller);
    return services.audit.list(ctx.caller, { ...page, teamId });
  },
});

/** GET /status: the report `trawl doctor` prints, for an admin key (src/core/status). */
export const statusOp = defineOp({
  ...installation.read,
  name: 'admin.status',
  tool: 'admin_status',
  title: 'Status',
  description:
    'The data directory, the index, the providers (checked with calls that cost nothing), the keys, the listener and ' +
    'what to do next, as `trawl doctor --json` prints it; no secrets.',
  route: { method: 'GET', path: '/status' },
  output: StatusReport,
  render: json('Status'),
  uses: ['status'],
  run: (services, _input, ctx) => services.status.report(ctx.signal),
});

/** The admin operations, as the registry lists them. */
export const ADMIN_OPERATIONS = [
  listTeamsOp,
  createTeamOp,
  updateTeamOp,
  addCreditsOp,
  listKeysOp,
  createKeyOp,
  revokeKeyOp,
  updateKeyOp,
  usageOp,
  auditOp,
  statusOp,
];
