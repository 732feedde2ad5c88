/**
 * Embedding vectors stored once in PostgreSQL (migration 11), so replicas with one embeddings provider
 * pay it once per text: `embedding_vectors` keyed by (model, dims, SHA-256 of the exact text), each
 * vector as float32 little-endian bytes (pgvector is not assumed; no search runs here, each replica
 * searches its own sqlite-vec index), and `embedding_models` with the size a model answers with.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SharedEmbeddings } from '../contracts/embeddings.js';

const NOW_ISO = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A vector as float32 little-endian bytes, whatever the platform's byte order. */
export function toFloat32Le(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes;
}

/** The vector of float32 little-endian bytes. */
export function fromFloat32Le(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

/** The shared embeddings in the PostgreSQL schema of `pool` (its `search_path`); the pool stays the caller's. */
export function createPgSharedEmbeddings(pool: pg.Pool): SharedEmbeddings {
  return {
    async dimensionsOf(model) {
      const { rows } = await pool.query<{ dims: number }>('SELECT dims FROM embedding_models WHERE model = $1', [model]); // prettier-ignore
      return rows[0]?.dims;
    },
    async recordDimensions(model, dims) {
      await pool.query(
        `INSERT INTO embedding_models (model, dims, updated_at) VALUES ($1, $2, ${NOW_ISO})
         ON CONFLICT (model) DO UPDATE SET dims = excluded.dims, updated_at = excluded.updated_at
         WHERE embedding_models.dims <> excluded.dims`,
        [model, dims],
      );
    },
    async find(model, dims, texts) {
      if (texts.length === 0) return [];
      const hashes = texts.map(sha256);
      const { rows } = await pool.query<{ text_sha256: Buffer; vector: Buffer }>(
        `SELECT text_sha256, vector FROM embedding_vectors
         WHERE model = $1 AND dims = $2 AND text_sha256 = ANY($3::bytea[])`,
        [model, dims, hashes],
      );
      const found = new Map(rows.map((r) => [r.text_sha256.toString('hex'), r.vector]));
      return hashes.map((h) => {
        const bytes = found.get(h.toString('hex'));
        return bytes && fromFloat32Le(bytes);
      });
    },
    async store(model, dims, entries) {
      const wrong = entries.find((e) => e.vector.length !== dims);
      if (wrong) {
        throw new Error(`An embedding of ${wrong.vector.length} values cannot be stored as ${model} at ${dims} dimensions`); // prettier-ignore
      }
      if (entries.length === 0) return;
      // ON CONFLICT DO NOTHING: replicas embedding one text at once store it once, the first write kept
      await pool.query(
        `INSERT INTO embedding_vectors (model, dims, text_sha256, vector, created_at)
         SELECT $1, $2, h, v, ${NOW_ISO} FROM unnest($3::bytea[], $4::bytea[]) AS t(h, v)
         ON CONFLICT DO NOTHING`,
        [model, dims, entries.map((e) => sha256(e.text)), entries.map((e) => toFloat32Le(e.vector))],
      );
    },
  };
}
