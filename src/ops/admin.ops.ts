/**
 * Administration over REST (`admin` scope; not MCP tools): teams, keys, credits and usage, as
 * `trawl teams|keys|credits|usage` do on the command line (docs/accounts.md), and the installation's
 * status, as `trawl doctor` prints it (docs/configuration.md).
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
  UsageQuery,
  UsageReport,
} from '../schemas/admin.schema.js';
import { StatusReport } from '../schemas/status.schema.js';
import { defineOp, type ToolHints } from './define-op.js';
import { plainAnswer } from './answer.js';
import { renderRecord } from './render.js';

const common = { capability: 'admin' as const, restOnly: true };
const READ: ToolHints = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolHints = { readOnlyHint: false, openWorldHint: false };
const json = (title: string) => (out: unknown) =>
  plainAnswer(renderRecord(title, out as Record<string, unknown>), out as Record<string, unknown>);

type Budget = { amount: number; period: 'day' | 'month' } | null | undefined;
const budgetOf = (b: Budget) =>
  b === undefined ? undefined : b === null ? null : { micros: toMicros(b.amount), period: b.period };

/** GET /admin/teams. */
export const listTeamsOp = defineOp({
  ...common,
  name: 'admin.teams.list',
  tool: 'admin_list_teams',
  title: 'List teams',
  description: 'Teams with their flags, credits and budgets.',
  route: { method: 'GET', path: '/admin/teams' },
  output: TeamList,
  annotations: READ,
  render: json('Teams'),
  run: async (services) => ({ data: await services.accounts.teams.list() }),
});

/** POST /admin/teams. */
export const createTeamOp = defineOp({
  ...common,
  name: 'admin.teams.create',
  tool: 'admin_create_team',
  title: 'Create a team',
  description: 'A team, optionally enterprise or zero-retention, with credits and a budget.',
  route: { method: 'POST', path: '/admin/teams' },
  body: CreateTeamRequest,
  output: Team,
  successStatus: 201,
  annotations: WRITE,
  render: json('Team created'),
  run: (services, input) => {
    const options: TeamOptions = {
      enterprise: input.enterprise,
      zeroRetention: input.zeroRetention,
      credits: input.credits === undefined ? undefined : toMicros(input.credits),
      budget: budgetOf(input.budget),
    };
    return services.accounts.teams.create(input.name, options);
  },
});

/** PATCH /admin/teams/:team. */
export const updateTeamOp = defineOp({
  ...common,
  name: 'admin.teams.update',
  tool: 'admin_update_team',
  title: 'Update a team',
  description: 'Block or unblock a team, change its flags, credits or budget.',
  route: { method: 'PATCH', path: '/admin/teams/:team' },
  params: TeamParams,
  body: UpdateTeamRequest,
  output: Team,
  annotations: WRITE,
  render: json('Team updated'),
  run: async (services, { team, blocked, credits, budget, ...flags }) => {
    const teams = services.accounts.teams;
    if (blocked !== undefined) await (blocked ? teams.block : teams.unblock)(team);
    const options: TeamOptions = {
      ...flags,
      credits: credits === undefined ? undefined : credits === null ? null : toMicros(credits),
      budget: budgetOf(budget),
    };
    return teams.update(team, options);
  },
});

/** POST /admin/teams/:team/credits. */
export const addCreditsOp = defineOp({
  ...common,
  name: 'admin.teams.credits',
  tool: 'admin_add_credits',
  title: 'Add credits',
  description: "Add dollars to a team's credits (a team without a credit limit gets one, starting from zero).",
  route: { method: 'POST', path: '/admin/teams/:team/credits' },
  params: TeamParams,
  body: AddCreditsRequest,
  output: Team,
  annotations: WRITE,
  render: json('Credits added'),
  run: (services, input) => services.accounts.teams.addCredits(input.team, toMicros(input.amount)),
});

/** GET /admin/keys. */
export const listKeysOp = defineOp({
  ...common,
  name: 'admin.keys.list',
  tool: 'admin_list_keys',
  title: 'List API keys',
  description: 'Every key with its team, scopes, budget and status; never the keys themselves.',
  route: { method: 'GET', path: '/admin/keys' },
  output: ApiKeyList,
  annotations: READ,
  render: json('API keys'),
  run: async (services) => ({ data: await services.keys.list() }),
});

/** POST /admin/keys. */
export const createKeyOp = defineOp({
  ...common,
  name: 'admin.keys.create',
  tool: 'admin_create_key',
  title: 'Create an API key',
  description: 'A key for a team, with scopes, a budget and a request rate; the key is shown only here.',
  route: { method: 'POST', path: '/admin/keys' },
  body: CreateKeyRequest,
  output: CreatedApiKey,
  successStatus: 201,
  annotations: WRITE,
  render: json('API key created'),
  run: async (services, input) =>
    services.keys.create(input.name, {
      teamId: input.team === undefined ? undefined : await services.accounts.teams.idOf(input.team),
      scopes: input.scopes,
      budget: budgetOf(input.budget) ?? undefined,
      qps: input.qps,
    }),
});

/** DELETE /admin/keys/:id. */
export const revokeKeyOp = defineOp({
  ...common,
  name: 'admin.keys.revoke',
  tool: 'admin_revoke_key',
  title: 'Revoke an API key',
  description: 'Revoke a key at once, in every process.',
  route: { method: 'DELETE', path: '/admin/keys/:id' },
  params: KeyParams,
  output: ApiKey,
  annotations: { ...WRITE, destructiveHint: true },
  render: json('API key revoked'),
  run: (services, input) => services.keys.revoke(input.id),
});

/** GET /admin/usage. */
export const usageOp = defineOp({
  ...common,
  name: 'admin.usage',
  tool: 'admin_usage',
  title: 'Usage',
  description: 'What each key and team spent over the last N UTC days, by operation.',
  route: { method: 'GET', path: '/admin/usage' },
  query: UsageQuery,
  output: UsageReport,
  annotations: READ,
  render: json('Usage'),
  run: async (services, input, ctx) => {
    const since = ctx.clock.now().getTime() - (input.days - 1) * 86_400_000;
    return { since: new Date(since).toISOString().slice(0, 10), data: await services.accounts.teams.usage(since) };
  },
});

/** GET /status: the report `trawl doctor` prints, for an admin key (src/core/status). */
export const statusOp = defineOp({
  ...common,
  name: 'admin.status',
  tool: 'admin_status',
  title: 'Status',
  description:
    'The data directory, the index, the providers (checked with calls that cost nothing), the keys, the listener and ' +
    'what to do next, as `trawl doctor --json` prints it; no secrets.',
  route: { method: 'GET', path: '/status' },
  output: StatusReport,
  annotations: READ,
  render: json('Status'),
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
  usageOp,
  statusOp,
];
