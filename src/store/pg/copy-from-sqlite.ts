/**
 * Copies the tables of copy-tables.ts from a SQLite data directory into PostgreSQL (`trawl migrate`).
 * Rows are read in key order and written in batches, one transaction each, which also records in
 * `trawl_migrate_progress` the last key written: a copy stopped anywhere (killed, a lost connection)
 * goes on from there when run again, and a table copied to its end is not read again (unless
 * `restart`). A row already in PostgreSQL is matched on its unique key and rewritten only where it
 * differs, so a run over a finished copy writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { DATABASE_FILE, type Db } from '../sqlite/database.js';
import { MIGRATIONS } from '../migrations/index.js';
import { COPIED_TABLES, selectOf, sourceOf, targetOf, type CopiedTable } from './copy-tables.js';
import { inTransaction, rowCountOf } from './sql.js';
import type { CopyProgress, TableCount } from '../contracts/copy-from-sqlite.js';

export interface CopyOptions {
  /** The SQLite database (openSourceDatabase). */
  source: Db;
  pool: pg.Pool;
  /** Names the source in the progress table (the data directory's real path), so two sources do not share progress. */
  sourceId: string;
  tables?: readonly CopiedTable[];
  /** Rows per transaction (default 1000). */
  batchSize?: number;
  /** Read every table from its start again, rewriting rows that changed (a directory copied while in use). */
  restart?: boolean;
  /** Per table with a `prepare` entry: changes a batch of rows (as read) before they are written. */
  prepare?: Readonly<Record<string, (rows: Record<string, unknown>[]) => void>>;
  /** A sealed column's value as PostgreSQL gets it (re-sealed under the new key, or as it was). */
  reseal?: (value: string, at: { table: string; column: string }) => string;
  onProgress?: (progress: CopyProgress) => void;
  /** Stops (throws) after this many batches: an interrupted copy, for tests. */
  stopAfterBatches?: number;
}

const PROGRESS_DDL = `
  CREATE TABLE IF NOT EXISTS trawl_migrate_progress (
    source      TEXT NOT NULL,
    table_name  TEXT NOT NULL,
    after_key   TEXT NOT NULL,
    copied      BIGINT NOT NULL,
    finished    BOOLEAN NOT NULL DEFAULT false,
    -- this pass over the table began with --restart (kept when it is resumed without it)
    started_over BOOLEAN NOT NULL DEFAULT false,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (source, table_name)
  )`;

/**
 * Opens `<dataDir>/trawl.sqlite` read-only. Throws when the directory or the file is missing, or when
 * its schema is not this release's (newer: upgrade Trawl; older: any trawl command of this release on
 * the directory migrates it, `trawl doctor` for one; migrate itself never writes to the directory).
 */
export function openSourceDatabase(dataDir: string): Db {
  if (!fs.existsSync(dataDir)) throw new Error(`${dataDir} does not exist`);
  if (!fs.statSync(dataDir).isDirectory()) throw new Error(`${dataDir} is not a directory`);
  const file = path.join(dataDir, DATABASE_FILE);
  if (!fs.existsSync(file)) throw new Error(`${dataDir} holds no ${DATABASE_FILE}: it is not a Trawl data directory`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    const latest = MIGRATIONS.at(-1)!.version;
    if (version > latest) {
      throw new Error(`${file} has schema version ${version}, newer than this Trawl understands (${latest}); upgrade Trawl`); // prettier-ignore
    }
    if (version < latest) {
      throw new Error(`${file} has schema version ${version}; this Trawl copies version ${latest}. Run \`trawl doctor --data-dir ${dataDir}\` with this release first (it migrates the directory), then migrate again`); // prettier-ignore
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Copies every table of `options.tables` (default COPIED_TABLES) in order; see the module comment. */
export async function copyFromSqlite(options: CopyOptions): Promise<void> {
  await options.pool.query(PROGRESS_DDL);
  if (options.restart) {
    await options.pool.query('DELETE FROM trawl_migrate_progress WHERE source = $1', [options.sourceId]);
  }
  const budget = { batches: options.stopAfterBatches ?? Infinity };
  const tables = options.tables ?? COPIED_TABLES;
  const unprepared = tables.filter((t) => t.prepare && !options.prepare?.[t.name]).map((t) => t.name);
  if (unprepared.length > 0) throw new Error(`copyFromSqlite needs a prepare hook for ${unprepared.join(', ')}`);
  for (const table of tables) await copyTable(table, options, budget);
}

const countSql = (t: CopiedTable) => `SELECT COUNT(*) AS n FROM ${t.name}${t.where ? ` WHERE ${t.where}` : ''}`;

/** The last row of each match key (a batch must not hold one twice: PostgreSQL would refuse to update it twice). */
function lastPerMatch(table: CopiedTable, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const match = table.match ?? table.key;
  const columns = new Map(table.columns.map((c) => [targetOf(c), sourceOf(c)]));
  const byKey = new Map(rows.map((r) => [JSON.stringify(match.map((m) => r[columns.get(m) ?? m])), r]));
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

/** Where a table's copy stands (in `trawl_migrate_progress`). */
interface Place {
  after: unknown[] | null;
  copied: number;
  finished: boolean;
  startedOver: boolean;
}

async function placeOf(pool: pg.Pool, sourceId: string, table: string, restart: boolean): Promise<Place> {
  const { rows } = await pool.query<{ after_key: string; copied: number; finished: boolean; started_over: boolean }>(
    'SELECT after_key, copied, finished, started_over FROM trawl_migrate_progress WHERE source = $1 AND table_name = $2',
    [sourceId, table],
  );
  const r = rows[0];
  if (!r) return { after: null, copied: 0, finished: false, startedOver: restart };
  return { after: JSON.parse(r.after_key) as unknown[], copied: r.copied, finished: r.finished, startedOver: r.started_over }; // prettier-ignore
}

const SAVE_PLACE = `
  INSERT INTO trawl_migrate_progress (source, table_name, after_key, copied, finished, started_over, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (source, table_name) DO UPDATE SET after_key = excluded.after_key, copied = excluded.copied,
    finished = excluded.finished, updated_at = excluded.updated_at`;

/** Writes a batch and the place after it in one transaction; how many rows it inserted or rewrote. */
async function commitBatch(
  table: CopiedTable,
  rows: Record<string, unknown>[],
  place: Place,
  options: CopyOptions,
): Promise<number> {
  // prettier-ignore
  const unique = lastPerMatch(table, rows);
  return inTransaction(options.pool, async (db) => {
    let written = 0;
    if (unique.length > 0) {
      const values = unique.map((row) => valuesOf(table, row, options.reseal));
      written = rowCountOf(await db.query(writeBatchSql(table)(unique.length), values.flat()));
      if (table.afterBatch) await db.query(table.afterBatch);
    }
    if (place.finished && table.afterTable) await db.query(table.afterTable(place.startedOver));
    await db.query(SAVE_PLACE, [options.sourceId, table.name, JSON.stringify(place.after ?? []), place.copied,
      place.finished, place.startedOver, new Date().toISOString()]); // prettier-ignore
    return written;
  });
}

async function copyTable(table: CopiedTable, options: CopyOptions, budget: { batches: number }): Promise<void> {
  const { source, pool } = options;
  // PostgreSQL takes at most 65,535 parameters a statement
  const size = Math.min(options.batchSize ?? 1000, Math.floor(65_535 / table.columns.length));
  const total = (source.prepare(countSql(table)).get() as { n: number }).n;
  let place = await placeOf(pool, options.sourceId, table.name, options.restart === true);
  if (place.finished) {
    // a run killed between its last batch and here left the sequence behind: moved on now
    if (table.identity) await advanceIdentity(pool, table.target ?? table.name, table.identity);
    options.onProgress?.({ table: table.name, copied: place.copied, total, written: 0, finished: true, skipped: true }); // prettier-ignore
    return;
  }
  const read = readBatch(source, table, size);
  let written = 0;
  while (!place.finished) {
    if (budget.batches-- <= 0) throw new Error(`stopped after ${options.stopAfterBatches} batches, as asked`);
    const rows = read(place.after);
    const last = rows.at(-1);
    const next: Place = {
      after: last ? table.key.map((k) => last[k]) : place.after,
      copied: place.copied + rows.length,
      finished: rows.length < size,
      startedOver: place.startedOver,
    };
    if (rows.length > 0) options.prepare?.[table.name]?.(rows);
    written += await commitBatch(table, rows, next, options).catch((err: Error) => {
      // a row PostgreSQL refuses (a unique name held by another row of a database in use): say where
      const where = place.after ? `the rows after key ${JSON.stringify(place.after)}` : 'its first rows';
      throw new Error(`copying ${table.name}, ${where}: ${err.message}`, { cause: err });
    });
    place = next;
    options.onProgress?.({ table: table.name, copied: place.copied, total, written, finished: place.finished });
  }
  if (table.identity) await advanceIdentity(pool, table.target ?? table.name, table.identity);
}

/** The next `size` rows after key `after` (from the start when null), in key order. */
function readBatch(source: Db, table: CopiedTable, size: number) {
  const read = [...table.columns.map(selectOf), ...table.key, ...Object.keys(table.dropped ?? {})];
  const columns = [...new Set(read)].join(', ');
  const order = table.key.join(', ');
  const where = table.where ? `(${table.where}) AND ` : '';
  const first = source.prepare(`SELECT ${columns} FROM ${table.name} ${table.where ? `WHERE ${table.where}` : ''} ORDER BY ${order} LIMIT ?`); // prettier-ignore
  const marks = table.key.map(() => '?').join(', ');
  const rest = source.prepare(`SELECT ${columns} FROM ${table.name} WHERE ${where}(${order}) > (${marks}) ORDER BY ${order} LIMIT ?`); // prettier-ignore
  return (after: unknown[] | null) => (after ? rest.all(...after, size) : first.all(size)) as Record<string, unknown>[];
}

/** A row's values in column order: converted, and sealed columns passed through the re-sealer. */
function valuesOf(table: CopiedTable, row: Record<string, unknown>, reseal: CopyOptions['reseal']): unknown[] {
  return table.columns.map((c) => {
    const value = typeof c === 'string' || !c.convert ? row[sourceOf(c)] : c.convert(row[sourceOf(c)]);
    const column = targetOf(c);
    if (reseal && typeof value === 'string' && table.sealed?.includes(column)) {
      return reseal(value, { table: table.name, column });
    }
    return value;
  });
}

/**
 * The INSERT of `n` rows: a row already there (matched on its unique key) is rewritten only where a
 * column differs; its identity (which PostgreSQL will not update) and its sealed secrets stay.
 */
export function writeBatchSql(table: CopiedTable): (n: number) => string {
  const target = table.target ?? table.name;
  const columns = table.columns.map(targetOf);
  const match = table.match ?? table.key;
  const keep = new Set([...match, ...(table.identity ? [table.identity] : []), ...(table.sealed ?? [])]);
  const updated = columns.filter((c) => !keep.has(c));
  const overriding = table.identity ? ' OVERRIDING SYSTEM VALUE' : '';
  const conflict =
    updated.length === 0
      ? 'DO NOTHING'
      : `DO UPDATE SET ${[...updated.map((c) => `${c} = excluded.${c}`), ...(table.alsoSet ? [table.alsoSet] : [])].join(', ')}
         WHERE (${updated.map((c) => `${target}.${c}`).join(', ')}) IS DISTINCT FROM (${updated.map((c) => `excluded.${c}`).join(', ')})`; // prettier-ignore
  return (n) => {
    const rows = Array.from({ length: n }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`); // prettier-ignore
    return `INSERT INTO ${target} (${columns.join(', ')})${overriding} VALUES ${rows.join(', ')}
      ON CONFLICT (${match.join(', ')}) ${conflict}`;
  };
}

/** Moves an identity column's sequence past the largest value copied (never back). */
async function advanceIdentity(pool: pg.Pool, table: string, column: string): Promise<void> {
  await pool.query(
    `SELECT setval(s, m) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass AS s, (SELECT MAX(${column}) FROM ${table}) AS m) x
     WHERE m IS NOT NULL AND m > COALESCE(pg_sequence_last_value(s), 0)`,
    [table, column],
  );
}

/** Rows of each table in SQLite and in PostgreSQL. */
export async function countTables(
  source: Db,
  pool: pg.Pool,
  tables: readonly CopiedTable[] = COPIED_TABLES,
): Promise<TableCount[]> {
  const counts: TableCount[] = [];
  for (const t of tables) {
    const inSource = (source.prepare(countSql(t)).get() as { n: number }).n;
    const { rows } = await pool.query<{ n: number }>(`SELECT COUNT(*)::bigint AS n FROM ${t.target ?? t.name}`);
    counts.push({ table: t.name, source: inSource, destination: rows[0]!.n });
  }
  return counts;
}
