/**
 * The contract of the vectors of Trawl's own code model: one per code chunk, keyed by its index id, per
 * model version (SQLite: sqlite/code-vectors.ts).
 */

/** A nearest chunk: its index id and its cosine similarity to the query. */
export interface CodeVectorHit {
  id: number;
  cosine: number;
}

/** The code chunks' vectors of one model version. */
export interface CodeVectorsRepo {
  readonly version: string;
  /** Stores chunks' vectors in the caller's transaction; a null vector (no known term) marks the chunk done without one. */
  putNow(entries: { id: number; vector: Float32Array | null }[]): void;
  /** Deletes the vectors of chunks, in the caller's transaction. */
  removeNow(ids: number[]): void;
  /** Indexed chunks without a vector of this version, at most `limit`, newest first. */
  pending(limit: number): number[];
  /** The `k` nearest chunks, best first. */
  nearest(vector: Float32Array, k: number): CodeVectorHit[];
  /** Chunks with a vector of this version. */
  count(): number;
  /** Deletes vectors of chunks no longer indexed; how many went. */
  prune(): number;
  /** Drops every other version of Trawl's code model (their tables and rows); the versions dropped. */
  dropOtherVersions(): string[];
}
