/**
 * What the code index knows of each indexed source (a folder, a repository, a package set, an import)
 * and of its files: size, mtime and content hash, so a re-index reads only what changed. On SQLite; the
 * PostgreSQL store (pg/code-files.ts) keeps the same, with the chunks, for replicas to copy.
 */
import { writeTransaction, type Db } from './database.js';
import {
  toSource,
  toSourceStats,
  type CodeSource,
  type ChunkWriter,
  type IndexedFile,
  type CodeFilesRepo,
  type SqliteCodeFilesRepo,
  type SourceRow,
} from '../contracts/code-files.js';

/** Prepared statements over `code_files` and `code_sources`; `chunks` writes the chunks in the same transactions. */
export function createCodeFilesRepo(db: Db, chunks: ChunkWriter): SqliteCodeFilesRepo {
  const q = {
    files: db.prepare('SELECT path, size, mtime_ms, hash FROM code_files WHERE source = ?'),
    put: db.prepare(`INSERT INTO code_files (source, path, size, mtime_ms, hash, chunks) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (source, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
      hash = excluded.hash, chunks = excluded.chunks`),
    touch: db.prepare('UPDATE code_files SET size = ?, mtime_ms = ?, hash = ? WHERE source = ? AND path = ?'),
    remove: db.prepare('DELETE FROM code_files WHERE source = ? AND path = ?'),
    putSource: db.prepare(`INSERT INTO code_sources (name, kind, location, indexed_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, location = excluded.location,
      indexed_at = excluded.indexed_at`),
    source: db.prepare('SELECT name, kind, location, indexed_at FROM code_sources WHERE name = ?'),
    sources: db.prepare(`SELECT s.name, s.kind, s.location, s.indexed_at, COUNT(f.path) AS files,
      COALESCE(SUM(f.chunks), 0) AS chunks FROM code_sources s LEFT JOIN code_files f ON f.source = s.name
      GROUP BY s.name ORDER BY s.name`),
  };
  const putSource = (s: CodeSource) => void q.putSource.run(s.name, s.kind, s.location, s.indexedAt);
  const storeNow = (source: string, files: IndexedFile[], at: number) => {
    chunks.replaceFiles(source, files, at);
    for (const f of files) q.put.run(source, f.path, f.state.size, f.state.mtimeMs, f.state.hash, f.chunks.length);
  };
  const removeNow = (source: string, paths: string[], at: number) => {
    chunks.replaceFiles(
      source,
      paths.map((path) => ({ path, chunks: [], hash: '' })),
      at,
    );
    for (const path of paths) q.remove.run(source, path);
  };
  const store = writeTransaction(db, storeNow);
  const finish = writeTransaction(
    db,
    (source: CodeSource, change: Parameters<CodeFilesRepo['finishSource']>[1], at: number) => {
      removeNow(source.name, change.removed, at);
      for (const { path, state } of change.touched) {
        q.touch.run(state.size, state.mtimeMs, state.hash, source.name, path);
      }
      putSource(source);
    },
  );
  return {
    storeFilesNow: storeNow,
    // no chunks are written, so no entry takes the time
    removeFilesNow: (source, paths) => removeNow(source, paths, 0),
    putSourceNow: putSource,
    settle: () => chunks.settle?.(),
    async files(source) {
      const rows = q.files.all(source) as { path: string; size: number; mtime_ms: number; hash: string }[];
      return new Map(rows.map((r) => [r.path, { size: r.size, mtimeMs: r.mtime_ms, hash: r.hash }]));
    },
    async storeFiles(source, files, indexedAt) {
      store(source, files, indexedAt);
    },
    async finishSource(source, change, indexedAt) {
      finish(source, change, indexedAt);
    },
    async putSource(source) {
      putSource(source);
    },
    async source(name) {
      const row = q.source.get(name) as SourceRow | undefined;
      return row ? toSource(row) : undefined;
    },
    async sources() {
      const rows = q.sources.all() as (SourceRow & { files: number; chunks: number })[];
      return rows.map(toSourceStats);
    },
  };
}
