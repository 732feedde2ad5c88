/**
 * The SQLite side of `trawl backup` and `trawl restore`: a consistent copy of a database another process
 * may be writing (SQLite's online backup API), the checks a copy must pass before it replaces anything
 * (`PRAGMA integrity_check`, its schema version, what it holds), and whether a process has a database
 * open (a try for SQLite's own exclusive lock).
 */
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../migrations/index.js';

/** Pages a step of the backup copies while nothing else writes (4 MiB of 4 KiB pages). */
const STEP_PAGES = 1024;
/** After this many restarts (another process wrote meanwhile), the rest is copied in one step. */
const RESTARTS_BEFORE_ONE_STEP = 2;

/** How far a copy is: pages copied of the database's pages now. */
export interface CopyProgress {
  done: number;
  total: number;
}

/** The schema version this code migrates databases to. */
export const LATEST_SCHEMA = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Copies the database `source` (which other processes may be writing) to `dest`, a new file, with the
 * online backup API, and leaves the copy in rollback-journal mode, so that it is one self-contained file.
 *
 * A step copies STEP_PAGES pages; when another process commits between two steps, SQLite starts the copy
 * again (so it is one snapshot); after RESTARTS_BEFORE_ONE_STEP restarts the rest is copied in a single
 * step, under one read transaction, which WAL lets writers work beside. Either way the copy is the
 * database as one transaction left it.
 */
export async function copyDatabase(
  source: string,
  dest: string,
  onProgress?: (p: CopyProgress) => void,
): Promise<CopyProgress> {
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    let restarts = 0;
    let lastRemaining = Infinity;
    const result = await db.backup(dest, {
      progress: ({ totalPages, remainingPages }) => {
        if (remainingPages > lastRemaining) restarts++;
        lastRemaining = remainingPages;
        onProgress?.({ done: totalPages - remainingPages, total: totalPages });
        return restarts >= RESTARTS_BEFORE_ONE_STEP ? 0x7fffffff : STEP_PAGES;
      },
    });
    const copy = new Database(dest, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    const done = { done: result.totalPages, total: result.totalPages };
    onProgress?.(done);
    return done;
  } finally {
    db.close();
  }
}

/** What a database copy holds, for the manifest and for the check after a restore. */
export interface DatabaseFacts {
  /** `PRAGMA user_version`: the schema's migration. */
  schemaVersion: number;
  /** Rows of the tables an operator checks after a restore (absent: the table is not in this file). */
  counts: Record<string, number>;
  /** Webhook secrets stored sealed (monitors' and pending deliveries'). */
  sealedWebhookSecrets: number;
}

/** The tables counted, by the name the manifest gives them. */
const COUNTED: Record<string, Record<string, string>> = {
  trawl: {
    documents: 'documents',
    apiKeys: 'api_keys',
    teams: 'teams',
    monitors: 'monitors',
    codeChunks: 'code_chunks',
    agentRuns: 'agent_runs',
  },
  cache: { cacheEntries: 'cache' },
};

const tablesOf = (db: Database.Database) =>
  new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map(String));

/** Opens `file` read-only, runs `fn`, closes it. */
function readOnly<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The facts of a `kind` database file (the store, or the page cache). */
export function factsOf(file: string, kind: 'trawl' | 'cache'): DatabaseFacts {
  return readOnly(file, (db) => {
    const tables = tablesOf(db);
    const counts: Record<string, number> = {};
    for (const [name, table] of Object.entries(COUNTED[kind]!)) {
      if (tables.has(table)) counts[name] = db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    }
    return {
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
      counts,
      sealedWebhookSecrets: kind === 'trawl' ? sealedSecretsOf(db, tables).length : 0,
    };
  });
}

function sealedSecretsOf(db: Database.Database, tables: Set<string>): string[] {
  const out: string[] = [];
  if (tables.has('monitors')) out.push(...(db.prepare('SELECT secret FROM monitors').pluck().all() as string[]));
  if (tables.has('webhook_deliveries')) {
    out.push(...(db.prepare('SELECT secret FROM webhook_deliveries').pluck().all() as string[]));
  }
  return out.filter((s) => typeof s === 'string' && s !== '');
}

/** The sealed webhook secrets of the store `file` (to check that a key opens them; never printed). */
export function sealedWebhookSecrets(file: string): string[] {
  return readOnly(file, (db) => sealedSecretsOf(db, tablesOf(db)));
}

/** `PRAGMA integrity_check` of `file`: an empty list when it is sound, else SQLite's first findings. */
export function integrityProblems(file: string): string[] {
  try {
    return readOnly(file, (db) => {
      const rows = db.pragma('integrity_check(20)', { simple: false }) as { integrity_check: string }[];
      return rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    });
  } catch (err) {
    // not a database at all ("file is not a database"), or one SQLite cannot open
    return [err instanceof Error ? err.message : String(err)];
  }
}

/** A database held with SQLite's exclusive lock, so that no other process can be using it. */
export interface HeldDatabase {
  release(): void;
}

/**
 * Takes SQLite's exclusive lock on `file` at once, or answers undefined when another process has the
 * database open. A process with a WAL database open holds a shared lock on it for as long as it is open,
 * even idle (a `trawl serve`, a worker of `--workers`, a running `trawl import`), so the exclusive lock is
 * refused exactly when one does.
 */
export function holdExclusively(file: string): HeldDatabase | undefined {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT'); // the lock stays: locking_mode EXCLUSIVE keeps it until the connection closes
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY')) return undefined;
    // a file that is no database (what a --force restore replaces): nothing can be serving from it
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return { release() {} };
    throw err;
  }
  return { release: () => db.close() };
}
