/**
 * The contract of the embedding vectors of indexed documents: nearest chunks by cosine distance, per
 * model and dimension (SQLite with sqlite-vec: sqlite/vectors.ts).
 */

/** A chunk's nearest-neighbour answer: the document it belongs to and its cosine distance. */
export interface VectorHit {
  docId: number;
  distance: number;
}

/**
 * The tables of an embedded index: its documents, their embedded chunks and which are done (migrations
 * 5 and 7), and the prefix of its vec0 tables.
 */
export interface VectorTables {
  docs: string;
  chunks: string;
  embedded: string;
  vectors: string;
  /** An index document's title, as SQL over the index's row `d` (the index keeps no copy of it). */
  title: string;
}

/** The embeddings of one model and dimension, as the semantic search uses them. */
export interface VectorsRepo {
  /** Indexed documents not embedded yet by this model, newest first. */
  pending(limit: number): Promise<{ id: number; url: string; title: string }[]>;
  /** Stores a document's chunk vectors (all or none). */
  put(docId: number, vectors: Float32Array[]): Promise<void>;
  /** The `k` nearest chunks to `vector`, by cosine distance, with their documents. */
  nearest(vector: Float32Array, k: number): Promise<VectorHit[]>;
  /** Deletes vectors of documents no longer indexed; returns how many chunks went. */
  prune(): Promise<number>;
}
