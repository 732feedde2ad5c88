/**
 * The contract of a store of embedding vectors shared by replicas: a text embedded by one replica is
 * not sent to the provider again by another (core/search/semantic.ts asks it first). Vectors are keyed
 * by model, size and the SHA-256 of the exact text embedded; the PostgreSQL one is pg/embeddings.ts.
 */

/** Vectors of embedded texts, stored once for every replica. */
export interface SharedEmbeddings {
  /** The vector size last recorded for `model`, if any replica recorded one. */
  dimensionsOf(model: string): Promise<number | undefined>;
  /** Records the vector size `model` answers with (a later record replaces it). */
  recordDimensions(model: string, dims: number): Promise<void>;
  /** The stored vector of each text for `model` at `dims`, in input order (`undefined` when none). */
  find(model: string, dims: number, texts: string[]): Promise<(Float32Array | undefined)[]>;
  /** Stores vectors of `dims` values; a text already stored keeps the vector it has. */
  store(model: string, dims: number, entries: { text: string; vector: Float32Array }[]): Promise<void>;
}
