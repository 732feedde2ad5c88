/** `trawl keys create | list | revoke`: API keys in the data directory's database. */
import { createApp } from '../app.js';
import type { Config } from '../config/config.js';
import { createLogger } from '../lib/logger.js';
import { printTable } from './table.js';

function withApp<T>(config: Config, fn: (app: ReturnType<typeof createApp>) => T): T {
  const app = createApp(config, { logger: createLogger('silent') });
  try {
    return fn(app);
  } finally {
    void app.close();
  }
}

/** Prints the new key, and only the key, on stdout; what was made goes to stderr. */
export function createKey(config: Config, name: string): void {
  withApp(config, (app) => {
    const made = app.services.keys.create(name);
    process.stdout.write(`${made.key}\n`);
    process.stderr.write(`Created API key ${made.id} ("${made.name}"). It is shown only once.\n`);
  });
}

export function listKeys(config: Config, json: boolean): void {
  withApp(config, (app) => {
    const keys = app.services.keys.list();
    if (json) {
      process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      return;
    }
    if (keys.length === 0) {
      process.stdout.write('No API keys. Create one with: trawl keys create --name NAME\n');
      return;
    }
    const rows = [
      ['ID', 'NAME', 'CREATED', 'LAST USED', 'STATUS'],
      ...keys.map((k) => [
        k.id,
        k.name,
        k.createdAt,
        k.lastUsedAt ?? '-',
        k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
      ]),
    ];
    printTable(rows);
  });
}

export function revokeKey(config: Config, id: string): void {
  withApp(config, (app) => {
    const key = app.services.keys.revoke(id);
    process.stdout.write(`Revoked API key ${key.id} ("${key.name}").\n`);
  });
}
