/**
 * What the code index knows of each indexed source (a folder, a repository, a package set, an import)
 * and of its files: size, mtime and content hash, so a re-index reads only what changed.
 */
import type { Db } from './database.js';

export interface CodeFileState {
  size: number;
  mtimeMs: number;
  hash: string;
}

export interface CodeSource {
  name: string;
  /** `folder`, `repository`, `packages`, `import`, `web`. */
  kind: string;
  /** The folder's absolute path, the repository URL, or the import file. */
  location: string;
  indexedAt: string;
}

export function createCodeFilesRepo(db: Db) {
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
  type SourceRow = { name: string; kind: string; location: string; indexed_at: string };
  const toSource = (r: SourceRow): CodeSource => ({ name: r.name, kind: r.kind, location: r.location, indexedAt: r.indexed_at }); // prettier-ignore
  return {
    /** The files indexed for `source`, by path. */
    files(source: string): Map<string, CodeFileState> {
      const rows = q.files.all(source) as { path: string; size: number; mtime_ms: number; hash: string }[];
      return new Map(rows.map((r) => [r.path, { size: r.size, mtimeMs: r.mtime_ms, hash: r.hash }]));
    },
    /** Records a file as indexed with `chunks` chunks. Run in the caller's transaction with the chunks. */
    put(source: string, path: string, state: CodeFileState, chunks: number): void {
      q.put.run(source, path, state.size, state.mtimeMs, state.hash, chunks);
    },
    /** Records a file's new size and mtime when its bytes did not change (its chunks stay). */
    touch(source: string, path: string, state: CodeFileState): void {
      q.touch.run(state.size, state.mtimeMs, state.hash, source, path);
    },
    remove(source: string, path: string): void {
      q.remove.run(source, path);
    },
    putSource(source: CodeSource): void {
      q.putSource.run(source.name, source.kind, source.location, source.indexedAt);
    },
    source(name: string): CodeSource | undefined {
      const row = q.source.get(name) as SourceRow | undefined;
      return row ? toSource(row) : undefined;
    },
    /** Every source with its file and chunk counts. */
    sources(): (CodeSource & { files: number; chunks: number })[] {
      return (q.sources.all() as (SourceRow & { files: number; chunks: number })[]).map((r) => ({ ...toSource(r), files: r.files, chunks: r.chunks })); // prettier-ignore
    },
  };
}
export type CodeFilesRepo = ReturnType<typeof createCodeFilesRepo>;
