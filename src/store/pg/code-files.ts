/**
 * The code index's sources, files and chunks over PostgreSQL: the same contract as `createCodeFilesRepo`
 * (SQLite), but the chunks are kept here rather than written to a local index. Every replica's SQLite
 * code index is a copy, made by following the code log (code-log.ts): each write records its files'
 * and its source's place in that log and wakes the followers when it commits.
 */
import type pg from 'pg';
import {
  toSource,
  toSourceStats,
  type CodeChunk,
  type CodeFileState,
  type CodeFilesRepo,
  type CodeSource,
  type IndexedFile,
  type SourceRow,
} from '../contracts/code-files.js';
import { CODE_CHANNEL_SQL, SOURCE_ROW } from './code-log.js';
import { inTransaction, pgText, type Run } from './sql.js';

/** Each path's latest change, placed in the code log (code-log.ts). */
const LOG = `
  INSERT INTO code_changes (source, path) SELECT $1, unnest($2::text[])
  ON CONFLICT (source, path) DO UPDATE SET change_xid = pg_current_xact_id(), change_seq = nextval('code_change_seq')`;

const PUT_FILES = `
  INSERT INTO code_files (source, path, size, mtime_ms, hash, chunks, indexed_ms)
  SELECT $1, u.*, $7 FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::text[], $6::int[]) AS u
  ON CONFLICT (source, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
    hash = excluded.hash, chunks = excluded.chunks, indexed_ms = excluded.indexed_ms`;

const PUT_CHUNKS = `
  INSERT INTO code_chunks (source, path, start_line, end_line, language, kind, symbol, doc, code)
  SELECT $1, u.* FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[],
    $9::text[]) AS u`;

const TOUCH = `
  UPDATE code_files f SET size = u.size, mtime_ms = u.mtime_ms, hash = u.hash
  FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::text[]) AS u (path, size, mtime_ms, hash)
  WHERE f.source = $1 AND f.path = u.path`;

const PUT_SOURCE = `
  INSERT INTO code_sources (name, kind, location, indexed_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, location = excluded.location, indexed_at = excluded.indexed_at`;

// as on SQLite; names in byte order (COLLATE "C"), as SQLite sorts them
const SOURCES = `
  SELECT s.name, s.kind, s.location, s.indexed_at, COUNT(f.path)::int AS files, COALESCE(SUM(f.chunks), 0)::int AS chunks
  FROM code_sources s LEFT JOIN code_files f ON f.source = s.name
  GROUP BY s.name ORDER BY s.name COLLATE "C"`;

/** A batch's files, one per path, as the SQLite store keeps them: the last state, chunks by place (the last cut). */
function onePerPath(files: IndexedFile[]) {
  const byPath = new Map<string, { state: CodeFileState; count: number; chunks: Map<string, CodeChunk> }>();
  for (const f of files) {
    const file = byPath.get(f.path) ?? { state: f.state, count: 0, chunks: new Map<string, CodeChunk>() };
    file.state = f.state;
    file.count = f.chunks.length;
    for (const c of f.chunks) file.chunks.set(`${c.startLine}:${c.endLine}`, c);
    byPath.set(f.path, file);
  }
  return byPath;
}

/** Columns of `PUT_FILES` and `PUT_CHUNKS` (after the source) for a batch. */
function columnsOf(files: IndexedFile[]) {
  // in path order, so that writers of one source lock its rows in one order
  const byPath = [...onePerPath(files)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const states = byPath.map(([path, f]) => ({ path, ...f.state, count: f.count }));
  const chunks = byPath.flatMap(([path, f]) => [...f.chunks.values()].map((c) => ({ ...c, path })));
  return {
    paths: states.map((f) => f.path),
    files: [states.map((f) => f.path), states.map((f) => f.size), states.map((f) => f.mtimeMs), states.map((f) => f.hash), states.map((f) => f.count)], // prettier-ignore
    chunks: [chunks.map((c) => c.path), chunks.map((c) => c.startLine), chunks.map((c) => c.endLine), chunks.map((c) => c.language), chunks.map((c) => c.kind), chunks.map((c) => pgText(c.symbol)), chunks.map((c) => pgText(c.doc)), chunks.map((c) => pgText(c.code))], // prettier-ignore
  };
}

/** Wakes the replicas following the code log (delivered when the transaction commits). */
const notify = (db: Run) => db.query(`SELECT pg_notify(${CODE_CHANNEL_SQL}, '')`);

const putSource = async (db: Run, s: CodeSource) => {
  await db.query(PUT_SOURCE, [s.name, s.kind, s.location, s.indexedAt]);
  await db.query(LOG, [s.name, [SOURCE_ROW]]);
};

/** The code files repository over PostgreSQL; each method is one transaction. */
export function createPgCodeFilesRepo(pool: pg.Pool): CodeFilesRepo {
  return {
    async files(source) {
      const { rows } = await pool.query<{ path: string; size: number; mtime_ms: number; hash: string }>(
        'SELECT path, size, mtime_ms, hash FROM code_files WHERE source = $1',
        [source],
      );
      return new Map(rows.map((r) => [r.path, { size: r.size, mtimeMs: r.mtime_ms, hash: r.hash }]));
    },
    async storeFiles(source, files, indexedAt) {
      if (files.length === 0) return;
      const { paths, files: fileColumns, chunks } = columnsOf(files);
      await inTransaction(pool, async (db) => {
        await db.query(PUT_FILES, [source, ...fileColumns, indexedAt]);
        await db.query('DELETE FROM code_chunks WHERE source = $1 AND path = ANY($2)', [source, paths]);
        await db.query(PUT_CHUNKS, [source, ...chunks]);
        await db.query(LOG, [source, paths]);
        await notify(db);
      });
    },
    async finishSource(source, { removed, touched }) {
      await inTransaction(pool, async (db) => {
        if (removed.length > 0) {
          // their chunks go with them (ON DELETE CASCADE)
          await db.query('DELETE FROM code_files WHERE source = $1 AND path = ANY($2)', [source.name, removed]);
          await db.query(LOG, [source.name, removed]);
        }
        if (touched.length > 0) {
          const states = touched.map((t) => t.state);
          await db.query(TOUCH, [source.name, touched.map((t) => t.path), states.map((s) => s.size), states.map((s) => s.mtimeMs), states.map((s) => s.hash)]); // prettier-ignore
        }
        await putSource(db, source);
        await notify(db);
      });
    },
    async putSource(source) {
      await inTransaction(pool, async (db) => {
        await putSource(db, source);
        await notify(db);
      });
    },
    async source(name) {
      const sql = 'SELECT name, kind, location, indexed_at FROM code_sources WHERE name = $1';
      const { rows } = await pool.query<SourceRow>(sql, [name]);
      return rows[0] ? toSource(rows[0]) : undefined;
    },
    async sources() {
      const { rows } = await pool.query<SourceRow & { files: number; chunks: number }>(SOURCES);
      return rows.map(toSourceStats);
    },
  };
}
