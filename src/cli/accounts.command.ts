/**
 * `trawl teams create | list | update | block | unblock`, `trawl credits add` and `trawl usage`: the
 * operator's view of teams, their money and what each key spent (docs/accounts.md).
 */
import type { Config } from '../config/config.js';
import { formatDollars, parseDollars, toMicros } from '../core/accounts/money.js';
import { checkPeriod, type TeamInfo, type TeamOptions } from '../core/accounts/teams.service.js';
import { printTable } from './table.js';
import { withApp } from './with-app.js';

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
  withApp(config, async (app) => show(await app.services.accounts.teams.create(name, teamOptions(flags)), flags.json));

/** `trawl teams update TEAM`. */
export const updateTeam = (config: Config, team: string, flags: TeamFlags) =>
  withApp(config, async (app) => show(await app.services.accounts.teams.update(team, teamOptions(flags)), flags.json));

/** `trawl teams block|unblock TEAM`. */
export const blockTeam = (config: Config, team: string, blocked: boolean) =>
  withApp(config, async (app) => {
    const teams = app.services.accounts.teams;
    show(await (blocked ? teams.block(team) : teams.unblock(team)), false);
  });

/** `trawl teams list`. */
export const listTeams = (config: Config, json: boolean) =>
  withApp(config, async (app) => {
    const teams = await app.services.accounts.teams.list();
    if (json) process.stdout.write(`${JSON.stringify(teams, null, 2)}\n`);
    else printTeams(teams);
  });

/** `trawl credits add --team TEAM AMOUNT`. */
export const addCredits = (config: Config, team: string, amount: string) =>
  withApp(config, async (app) => {
    const after = await app.services.accounts.teams.addCredits(team, parseDollars(amount, 'AMOUNT'));
    process.stdout.write(`Team ${after.name} now has ${money(after.credits)} of credits.\n`);
  });

/** Spend per team (a total line) and per key over the last `days` UTC days, as a table or JSON. */
export const usage = (config: Config, flags: { days?: string; json?: boolean }) =>
  withApp(config, async (app) => {
    const days = Number(flags.days ?? 30);
    if (!Number.isInteger(days) || days < 1 || days > 366)
      throw new Error(`--days must be 1-366 (got "${flags.days}")`);
    const since = Date.now() - (days - 1) * 86_400_000;
    const lines = await app.services.accounts.teams.usage(since);
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
