/**
 * The contract of the code index's store: indexed sources, their files (size, mtime, content hash, so a
 * re-index reads only what changed) and chunks, kept by sqlite/code-files.ts and pg/code-files.ts.
 */

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
