/**
 * `trawl teams create | list | update | block | unblock`, `trawl credits add`, `trawl usage` and `trawl
 * audit`: the operator's view of teams, their money, what each key spent and who changed what
 * (docs/accounts.md). The CLI acts as the operator (the local process): its changes are audited too.
 */
import type { Config } from '../config/config.js';
import { formatDollars, parseDollars, toMicros } from '../core/accounts/money.js';
import { checkPeriod, type TeamInfo, type TeamOptions } from '../core/accounts/teams.service.js';
import { printTable } from './table.js';
import { OPERATOR, withApp } from './with-app.js';

/** `trawl teams create|update` options. */
export interface TeamFlags {
  enterprise?: string | boolean;
  zeroRetention?: string | boolean;
  credits?: string;
  budget?: string;
  budgetPeriod?: string;
  json?: boolean;
}

const bool = (value: string | boolean | undefined, flag: string): boolean | undefined => {
  if (value === undefined || typeof value === 'boolean') return value;
  if (['true', 'yes', '1'].includes(value)) return true;
  if (['false', 'no', '0'].includes(value)) return false;
  throw new Error(`${flag} must be true or false (got "${value}")`);
};

/** Team options from flags; `--credits none` / `--budget none` remove a limit. */
function teamOptions(flags: TeamFlags): TeamOptions {
  const period = checkPeriod(flags.budgetPeriod ?? 'month', '--budget-period');
  return {
    enterprise: bool(flags.enterprise, '--enterprise'),
    zeroRetention: bool(flags.zeroRetention, '--zero-retention'),
    credits:
      flags.credits === undefined
        ? undefined
        : flags.credits === 'none'
          ? null
          : parseDollars(flags.credits, '--credits'),
    budget:
      flags.budget === undefined
        ? undefined
        : flags.budget === 'none'
          ? null
          : { micros: parseDollars(flags.budget, '--budget'), period },
  };
}

const money = (dollars: number | null) => (dollars === null ? 'unlimited' : formatDollars(toMicros(dollars)));

function printTeams(teams: TeamInfo[]): void {
  printTable([
    ['TEAM', 'ID', 'STATUS', 'CREDITS', 'BUDGET', 'MODES'],
    ...teams.map((t) => [
      t.name,
      t.id,
      t.blocked ? 'blocked' : 'active',
      money(t.credits),
      t.budget ? `${money(t.budget.amount)}/${t.budget.period}` : '-',
      [t.enterprise ? 'enterprise' : '', t.zeroRetention ? 'zero-retention' : ''].filter(Boolean).join(',') || '-',
    ]),
  ]);
}

function show(team: TeamInfo, json: boolean | undefined): void {
  if (json) process.stdout.write(`${JSON.stringify(team, null, 2)}\n`);
  else printTeams([team]);
}

/** `trawl teams create NAME`. */
export const createTeam = (config: Config, name: string, flags: TeamFlags) =>
  withApp(config, async (app) => show(await app.accounts.teams.create(name, teamOptions(flags), OPERATOR), flags.json));

/** `trawl teams update TEAM`. */
export const updateTeam = (config: Config, team: string, flags: TeamFlags) =>
  withApp(config, async (app) => show(await app.accounts.teams.update(team, teamOptions(flags), OPERATOR), flags.json));

/** `trawl teams block|unblock TEAM`. */
export const blockTeam = (config: Config, team: string, blocked: boolean) =>
  withApp(config, async (app) => {
    const teams = app.accounts.teams;
    show(await (blocked ? teams.block(team, OPERATOR) : teams.unblock(team, OPERATOR)), false);
  });

/** `trawl teams list`. */
export const listTeams = (config: Config, json: boolean) =>
  withApp(config, async (app) => {
    const teams = await app.accounts.teams.list(OPERATOR);
    if (json) process.stdout.write(`${JSON.stringify(teams, null, 2)}\n`);
    else printTeams(teams);
  });

/** `trawl credits add --team TEAM AMOUNT`. */
export const addCredits = (config: Config, team: string, amount: string) =>
  withApp(config, async (app) => {
    const after = await app.accounts.teams.addCredits(team, parseDollars(amount, 'AMOUNT'), OPERATOR);
    process.stdout.write(`Team ${after.name} now has ${money(after.credits)} of credits.\n`);
  });

/** Spend per team (a total line) and per key over the last `days` UTC days, as a table or JSON. */
export const usage = (config: Config, flags: { days?: string; json?: boolean }) =>
  withApp(config, async (app) => {
    const days = Number(flags.days ?? 30);
    if (!Number.isInteger(days) || days < 1 || days > 366)
      throw new Error(`--days must be 1-366 (got "${flags.days}")`);
    const since = Date.now() - (days - 1) * 86_400_000;
    const lines = await app.accounts.teams.usage(since, OPERATOR);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
      return;
    }
    if (lines.length === 0) {
      process.stdout.write(`Nothing spent in the last ${days} days.\n`);
      return;
    }
    const sorted = [...lines].sort(
      (a, b) => a.team.localeCompare(b.team) || (a.keyId === null ? -1 : b.keyId === null ? 1 : b.spent - a.spent),
    );
    printTable([
      ['TEAM', 'KEY', 'REQUESTS', 'SPENT', 'BY OPERATION'],
      ...sorted.map((l) => [
        l.team,
        l.keyId === null ? '(team total)' : `${l.keyName} ${l.keyId ? `(${l.keyId})` : ''}`.trim(),
        String(l.requests),
        formatDollars(toMicros(l.spent)),
        Object.entries(l.byOperation)
          .map(([op, d]) => `${op} ${formatDollars(toMicros(d))}`)
          .join(', '),
      ]),
    ]);
  });

/** `trawl audit [--team T] [--limit N]`: changes made to teams' accounts, newest first. */
export const audit = (config: Config, flags: { team?: string; limit?: string; json?: boolean }) =>
  withApp(config, async (app) => {
    const limit = Number(flags.limit ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw new Error(`--limit must be 1-100 (got "${flags.limit}")`);
    const teamId = flags.team === undefined ? undefined : await app.accounts.teams.idOf(flags.team, OPERATOR);
    const records = (await app.operator.audit.list(OPERATOR, { limit, teamId })).data;
    if (flags.json) return void process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
    if (records.length === 0) return void process.stdout.write('No audit records.\n');
    const names = new Map((await app.accounts.teams.list(OPERATOR)).map((t) => [t.id, t.name]));
    printTable([
      ['AT', 'TEAM', 'ACTION', 'TARGET', 'BY', 'DETAIL'],
      ...records.map((r) => [
        r.at,
        names.get(r.teamId) ?? r.teamId,
        r.action,
        r.target,
        r.actor.keyId === null
          ? '(local: the CLI)'
          : `key ${r.actor.keyId} (team ${names.get(r.actor.teamId ?? '') ?? r.actor.teamId})`,
        r.detail ? JSON.stringify(r.detail) : '',
      ]),
    ]);
  });
