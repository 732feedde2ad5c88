/**
 * `trawl migrate`: a data directory's durable state moved into PostgreSQL (issue 24). Checks everything
 * that can be checked before writing (the directory, its schema, the URL, every webhook secret), then
 * opens PostgreSQL (applying its migrations), copies the tables (store/pg/copy-from-sqlite.ts) and
 * counts each table on both sides. The directory is only read. It opens both stores, so it is part of
 * the composition root; the core's parts (core/migrate/) are given what it opened.
 */
import fs from 'node:fs';
import { copyFromSqlite, countTables, openSourceDatabase } from '../store/pg/copy-from-sqlite.js';
// prettier-ignore
import { COPIED_TABLES, whySkipped } from '../store/pg/copy-tables.js';
import { openPgStore, type PgStore } from '../store/pg/database.js';
import { createPgSharedEmbeddings } from '../store/pg/embeddings.js';
import { createChunkTexts, type StoredText } from '../core/code/index/chunk-texts.js';
import { loadOperatorKey, readOperatorKeyFile } from '../core/monitors/secret-box.js';
import { copyEmbeddings, type EmbeddingsCopy } from '../core/migrate/embeddings.js';
import { planSecrets } from '../core/migrate/webhook-secrets.js';
import type { CopyProgress, TableCount } from '../store/contracts/copy-from-sqlite.js';

export type { CopyProgress, TableCount };

export interface MigrateOptions {
  /** The data directory (it holds trawl.sqlite). */
  dataDir: string;
  /** A `postgres://` or `postgresql://` URL. */
  url: string;
  /** The PostgreSQL schema (default `public`). */
  schema?: string;
  /** The operator key every replica shares (`TRAWL_SECRET_KEY`). */
  secretKey: string | undefined;
  /** Read every table from its start again (see copy-from-sqlite.ts). */
  restart?: boolean;
  /** Rows per transaction (default 1000). */
  batchSize?: number;
  onProgress?: (progress: CopyProgress) => void;
  /** Stops (throws) after this many batches: an interrupted copy, for tests. */
  stopAfterBatches?: number;
}

export interface MigrateReport {
  /** Each copied table's rows in the directory and in PostgreSQL. */
  counts: TableCount[];
  /** Tables whose counts differ. */
  mismatched: string[];
  /** SQLite tables present in the directory and not copied, with why. */
  skipped: { table: string; why: string }[];
  /** Document embeddings copied into embedding_vectors, and documents left out. */
  embeddings: EmbeddingsCopy;
  /** Webhook secrets sealed again under the shared key (they opened only under the directory's secret.key). */
  resealed: number;
}

/** The URL with its password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

function checkUrl(url: string): void {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new Error('--to must be a PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE');
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new Error(`--to must be a postgres:// or postgresql:// URL (got a ${protocol} URL)`);
  }
}

async function openTarget(url: string, schema: string | undefined): Promise<PgStore> {
  try {
    return await openPgStore(url, { schema, max: 2 });
  } catch (err) {
    const password = (() => { try { return decodeURIComponent(new URL(url).password); } catch { return ''; } })(); // prettier-ignore
    const raw = err instanceof Error ? err.message || String((err as NodeJS.ErrnoException).code) : String(err);
    const message = password ? raw.split(password).join('***') : raw;
    throw new Error(`PostgreSQL at ${redactUrl(url)} (schema ${schema ?? 'public'}): ${message}`);
  }
}

/** What the directory holds and is not copied (sqlite-vec's tables once per pattern; SQLite's own left out). */
function skippedTables(db: ReturnType<typeof openSourceDatabase>): MigrateReport['skipped'] {
  const copied = new Set(COPIED_TABLES.map((t) => t.name));
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]; // prettier-ignore
  const skipped = new Map<string, string>();
  for (const { name } of names) {
    if (copied.has(name) || name.startsWith('sqlite_')) continue;
    const entry = whySkipped(name);
    skipped.set(entry?.pattern ?? name, entry?.why ?? 'no PostgreSQL twin');
  }
  return [...skipped].map(([table, why]) => ({ table, why }));
}

/** Sets code chunks' code and doc, whole, from the compressed blocks they are kept in (PostgreSQL keeps them whole). */
function chunkTextsOf(source: ReturnType<typeof openSourceDatabase>) {
  const texts = createChunkTexts(source);
  return (rows: Record<string, unknown>[]) => {
    const read = texts.read(rows as unknown as StoredText[]);
    rows.forEach((row, i) => Object.assign(row, read[i]));
  };
}

/**
 * Copies the directory into PostgreSQL and counts both sides. Throws (before writing anything) on a
 * missing directory, a schema it does not copy, a non-PostgreSQL URL, a missing shared key or a secret
 * it cannot open, and when PostgreSQL cannot be reached (the message never holds the password).
 */
export async function migrateToPg(options: MigrateOptions): Promise<MigrateReport> {
  checkUrl(options.url);
  const source = openSourceDatabase(options.dataDir);
  try {
    if (options.secretKey === undefined || options.secretKey.trim() === '') {
      throw new Error(
        'migrate needs TRAWL_SECRET_KEY (or --secret-key): the operator key every replica on PostgreSQL shares, ' +
          "under which the monitors' webhook secrets are stored (e.g. `openssl rand -base64 32`)",
      );
    }
    const sharedKey = loadOperatorKey({ configured: options.secretKey, dataDir: options.dataDir });
    const secrets = planSecrets(source, sharedKey, readOperatorKeyFile(options.dataDir));
    const target = await openTarget(options.url, options.schema);
    try {
      await copyFromSqlite({
        source,
        pool: target.pool,
        sourceId: fs.realpathSync(options.dataDir),
        restart: options.restart,
        batchSize: options.batchSize,
        reseal: secrets.reseal,
        prepare: { code_chunks: chunkTextsOf(source) },
        onProgress: options.onProgress,
        stopAfterBatches: options.stopAfterBatches,
      });
      const embeddings = await copyEmbeddings(source, createPgSharedEmbeddings(target.pool), options.onProgress);
      const counts = await countTables(source, target.pool);
      return {
        counts,
        mismatched: counts.filter((c) => c.source !== c.destination).map((c) => c.table),
        skipped: skippedTables(source),
        embeddings,
        resealed: secrets.resealed,
      };
    } finally {
      await target.close();
    }
  } finally {
    source.close();
  }
}
