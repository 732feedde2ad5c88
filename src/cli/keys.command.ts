/**
 * `trawl keys create | list | update | revoke`: API keys in the data directory's database. The CLI is the
 * operator: it manages every team's keys, and its changes are audited as made locally.
 */
import type { Config } from '../config/config.js';
import { parseDollars } from '../core/accounts/money.js';
import type { ApiKeyInfo } from '../core/accounts/keys.service.js';
import { parseScopes } from '../core/access/scopes.js';
import { checkPeriod } from '../core/accounts/teams.service.js';
import { printTable } from './table.js';
import { OPERATOR, withApp } from './with-app.js';

/** `trawl keys create` options besides the name (docs/accounts.md). */
export interface KeyFlags {
  team?: string;
  scopes?: string;
  budget?: string;
  budgetPeriod?: string;
  qps?: string;
}

/** Prints the new key, and only the key, on stdout; what was made goes to stderr. */
export function createKey(config: Config, name: string, flags: KeyFlags = {}): Promise<void> {
  return withApp(config, async (app) => {
    const qps = flags.qps === undefined ? undefined : Number(flags.qps);
    if (qps !== undefined && !(qps >= 0))
      throw new Error(`--qps must be a number of requests per second (got "${flags.qps}")`);
    const options = {
      teamId: flags.team === undefined ? undefined : await app.accounts.teams.idOf(flags.team, OPERATOR),
      scopes: flags.scopes === undefined ? undefined : parseScopes(flags.scopes, '--scopes'),
      budget:
        flags.budget === undefined
          ? undefined
          : {
              micros: parseDollars(flags.budget, '--budget'),
              period: checkPeriod(flags.budgetPeriod ?? 'month', '--budget-period'),
            },
      qps,
    };
    const made = await app.keys.create(name, options, OPERATOR);
    process.stdout.write(`${made.key}\n`);
    process.stderr.write(
      `Created API key ${made.id} ("${made.name}", team ${flags.team ?? 'default'}, scopes ${scopesText(made)}). It is shown only once.\n`,
    );
  });
}

/** `trawl keys list`: a table, or JSON; never the keys themselves. */
export function listKeys(config: Config, json: boolean): Promise<void> {
  return withApp(config, async (app) => {
    const keys = await app.keys.list(OPERATOR);
    if (json) {
      process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      return;
    }
    if (keys.length === 0) {
      process.stdout.write('No API keys. Create one with: trawl keys create --name NAME\n');
      return;
    }
    const teams = new Map((await app.accounts.teams.list(OPERATOR)).map((t) => [t.id, t.name]));
    const rows = [
      ['ID', 'NAME', 'TEAM', 'SCOPES', 'CREATED', 'LAST USED', 'STATUS'],
      ...keys.map((k) => [
        k.id,
        k.name,
        teams.get(k.teamId) ?? k.teamId,
        scopesText(k),
        k.createdAt,
        k.lastUsedAt ?? '-',
        k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
      ]),
    ];
    printTable(rows);
  });
}

/** `trawl keys revoke ID|KEY`. */
export function revokeKey(config: Config, id: string): Promise<void> {
  return withApp(config, async (app) => {
    const key = await app.keys.revoke(id, OPERATOR);
    process.stdout.write(`Revoked API key ${key.id} ("${key.name}").\n`);
  });
}

/** `trawl keys update ID --scopes LIST`: replaces a key's scopes (to narrow one that holds admin, say). */
export function updateKey(config: Config, id: string, flags: { scopes?: string }): Promise<void> {
  return withApp(config, async (app) => {
    if (flags.scopes === undefined) throw new Error('--scopes is required: the scopes the key holds from now on');
    const key = await app.keys.setScopes(id, parseScopes(flags.scopes, '--scopes'), OPERATOR);
    process.stdout.write(`API key ${key.id} ("${key.name}") now has scopes ${scopesText(key)}.\n`);
  });
}

/**
 * A key's scopes as the CLI shows them: `admin` spelled out as what it is (every team), and a key stored
 * without scopes as holding every one, admin included.
 */
export function scopesText(key: Pick<ApiKeyInfo, 'scopes' | 'admin'>): string {
  if (key.scopes === null) return 'all, admin included (made before least privilege: narrow with trawl keys update)';
  const list = key.scopes.join(',');
  return key.admin ? `${list} (admin: every team)` : list;
}
