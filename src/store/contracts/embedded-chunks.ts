/**
 * An index document's embedded chunks read back with their vectors (sqlite/embedded-chunks.ts), as
 * `trawl migrate` copies them to PostgreSQL.
 */

/** The chunks of one index document embedded by one model, with their vectors in chunk order. */
export interface EmbeddedDoc {
  model: string;
  dims: number;
  url: string;
  /** The index entry's hash (core/search/index-entry.ts `entryHash`): which version of the document was embedded. */
  entryHash: string;
  vectors: Float32Array[];
}
