/**
 * What the code index knows of each indexed source (a folder, a repository, a package set, an import)
 * and of its files: size, mtime and content hash, so a re-index reads only what changed. On SQLite; the
 * PostgreSQL store (pg/code-files.pg.ts) keeps the same, with the chunks, for replicas to copy.
 */
import { writeTransaction, type Db } from './database.js';

/** What a file was when it was indexed: size, mtime and content hash. */
export interface CodeFileState {
  size: number;
  mtimeMs: number;
  hash: string;
}

/** An indexed source: a folder, a repository, a package set, an import or the web. */
export interface CodeSource {
  name: string;
  /** `folder`, `repository`, `packages`, `import`, `web`. */
  kind: string;
  /** The folder's absolute path, the repository URL, or the import file. */
  location: string;
  indexedAt: string;
}

/**
 * A chunk of a file: where it is and its text (core/code/index/code-index.ts `ChunkRecord`, which may
 * carry its analysis too). Its `source` and `path` are those of the file it is written with.
 */
export interface CodeChunk {
  /** The indexed folder, repository, package set or import, by name. */
  source: string;
  /** Path inside the source ('/' separators), or the URL of a documentation page. */
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: string;
  symbol: string | null;
  doc: string | null;
  code: string;
}

/** One file's chunks as the code index writes them (core/code/index/code-index.ts `FileChunks`). */
export interface FileChunksWrite {
  path: string;
  hash: string;
  chunks: readonly CodeChunk[];
}

/**
 * The code index's synchronous write, run inside this repository's transactions so a file's chunks
 * and its recorded state never part (an interrupted index leaves whole files only).
 */
export interface ChunkWriter {
  replaceFiles(source: string, files: FileChunksWrite[], indexedAt: number): void;
  /** After a write in the caller's transaction has committed: background work it may need (merges). */
  settle?(): void;
}

/** A file indexed in a batch: its chunks and the state to record for it. */
export type IndexedFile = FileChunksWrite & { state: CodeFileState };

/** A source with its file and chunk counts. */
export type CodeSourceStats = CodeSource & { files: number; chunks: number };

/** The indexed sources and files. Every method resolves once its statements ran; each is atomic. */
export interface CodeFilesRepo {
  /** The files indexed for `source`, by path. */
  files(source: string): Promise<Map<string, CodeFileState>>;
  /** Writes a batch of files of `source`: their chunks (through the code index) and their states. */
  storeFiles(source: string, files: IndexedFile[], indexedAt: number): Promise<void>;
  /**
   * Ends an indexing run: the chunks and states of `removed` files go, `touched` files (same bytes, new
   * mtime) keep their chunks with their new state, and the source is recorded.
   */
  finishSource(
    source: CodeSource,
    change: { removed: string[]; touched: { path: string; state: CodeFileState }[] },
    indexedAt: number,
  ): Promise<void>;
  /** Records (or updates) a source. */
  putSource(source: CodeSource): Promise<void>;
  source(name: string): Promise<CodeSource | undefined>;
  /** Every source with its file and chunk counts, by name. */
  sources(): Promise<CodeSourceStats[]>;
}

/**
 * The SQLite repository's writes in the caller's transaction, for a replica applying the shared code
 * log (core/replica/code-follower.ts) together with its place in it.
 */
export interface SqliteCodeFilesRepo extends CodeFilesRepo {
  /** `storeFiles`, in the caller's transaction. */
  storeFilesNow(source: string, files: IndexedFile[], indexedAt: number): void;
  /** Forgets files of `source`, their chunks and states, in the caller's transaction. */
  removeFilesNow(source: string, paths: string[]): void;
  /** `putSource`, in the caller's transaction. */
  putSourceNow(source: CodeSource): void;
  /** After a write in the caller's transaction has committed: the code index's background work. */
  settle(): void;
}

/** A `code_sources` row, on either backend. */
export type SourceRow = { name: string; kind: string; location: string; indexed_at: string };
/** A `code_sources` row → its source. */
export const toSource = (r: SourceRow): CodeSource => ({
  name: r.name,
  kind: r.kind,
  location: r.location,
  indexedAt: r.indexed_at,
});
/** A source row with its counts → its stats. */
export const toSourceStats = (r: SourceRow & { files: number; chunks: number }): CodeSourceStats => ({
  ...toSource(r),
  files: r.files,
  chunks: r.chunks,
});

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
