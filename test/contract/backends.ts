/**
 * The backends a repository contract runs on: SQLite in a temp dir always; PostgreSQL, in a schema of
 * its own dropped afterwards, where a server answers (CI makes one answer). `second()` is another handle
 * on the same database, as a second process or replica has.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterEach } from 'vitest';
import { openDatabase, type Db } from '../../src/store/sqlite/database.js';
import { freshPgStore, pgReachable } from '../helpers/postgres.js';

export interface ContractBackend<R> {
  repo: R;
  second(): R;
  close(): Promise<void>;
}

export type BackendCase<R> = [name: string, available: boolean, open: () => Promise<ContractBackend<R>>];

export function backendsFor<R>(sqlite: (db: Db) => R, postgres: (pool: pg.Pool) => R): BackendCase<R>[] {
  return [
    [
      'SQLite',
      true,
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-contract-'));
        const dbs = [openDatabase(dir)];
        return {
          repo: sqlite(dbs[0]!),
          second: () => sqlite(dbs[dbs.push(openDatabase(dir)) - 1]!),
          async close() {
            for (const db of dbs) db.close();
            fs.rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    ],
    [
      'PostgreSQL',
      pgReachable,
      async () => {
        const store = await freshPgStore();
        return { repo: postgres(store.pool), second: () => postgres(store.pool), close: store.drop };
      },
    ],
  ];
}

/**
 * Within a describe: `open()` makes a fresh backend for the test, closed after it; `current()` is the
 * one open (for helpers shared by the tests).
 */
export function perTest<R>(open: () => Promise<ContractBackend<R>>) {
  let current: ContractBackend<R> | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return { open: async () => (current = await open()), current: () => current! };
}
