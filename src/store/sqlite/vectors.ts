/**
 * Embedding vectors of indexed documents, in SQLite through the sqlite-vec extension: one vec0 table
 * per model and dimension, chunk ids as rowids, nearest neighbours by cosine distance.
 */
import { createHash } from 'node:crypto';
import * as sqliteVec from 'sqlite-vec';
import { writeTransaction, type Db } from './database.js';
import type { VectorHit, VectorTables, VectorsRepo } from '../contracts/vectors.js';

const loaded = new WeakSet<Db>();

/** Loads sqlite-vec into this connection once. */
function loadVec(db: Db): void {
  if (loaded.has(db)) return;
  sqliteVec.load(db);
  loaded.add(db);
}

export const SEARCH_VECTORS: VectorTables = { docs: 'search_docs', chunks: 'search_chunks', embedded: 'search_embedded', vectors: 'search_vectors', title: `COALESCE((SELECT title FROM documents WHERE url = d.url), '')` }; // prettier-ignore
export const CODE_VECTORS: VectorTables = { docs: 'code_docs', chunks: 'code_vec_chunks', embedded: 'code_embedded', vectors: 'code_vectors', title: `COALESCE((SELECT COALESCE(symbol, path) FROM code_chunks WHERE id = d.id), '')` }; // prettier-ignore

/** The vec0 table of a model and dimension (a changed model or size gets a table of its own). */
export function vectorTable(model: string, dims: number, prefix = 'search_vectors'): string {
  return `${prefix}_${createHash('sha256').update(`${model}\u0000${dims}`).digest('hex').slice(0, 12)}`;
}

/** The vectors repository of `model` at `dims` dimensions over `db` (sqlite-vec). */
export function createVectorsRepo(
  db: Db,
  model: string,
  dims: number,
  tables: VectorTables = SEARCH_VECTORS,
): VectorsRepo {
  loadVec(db);
  const table = vectorTable(model, dims, tables.vectors);
  const { docs: docsT, chunks: chunksT, embedded: embeddedT } = tables;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(embedding float[${dims}] distance_metric=cosine)`);
  const q = {
    pending: db.prepare(`SELECT d.id, d.url, ${tables.title} AS title FROM ${docsT} d
      WHERE NOT EXISTS (SELECT 1 FROM ${embeddedT} e WHERE e.doc_id = d.id AND e.model = ?)
      ORDER BY d.id DESC LIMIT ?`),
    chunk: db.prepare(`INSERT INTO ${chunksT} (doc_id, model, chunk) VALUES (?, ?, ?)`),
    vector: db.prepare(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`),
    done: db.prepare(`INSERT OR IGNORE INTO ${embeddedT} (doc_id, model) VALUES (?, ?)`),
    knn: db.prepare(`SELECT c.doc_id AS docId, v.distance AS distance FROM
      (SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?) v
      JOIN ${chunksT} c ON c.id = v.rowid ORDER BY v.distance`),
    stale: db.prepare(`SELECT c.id FROM ${chunksT} c WHERE c.model = ?
      AND NOT EXISTS (SELECT 1 FROM ${docsT} d WHERE d.id = c.doc_id) LIMIT 1000`),
    dropChunk: db.prepare(`DELETE FROM ${chunksT} WHERE id = ?`),
    dropVector: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
  };
  const put = writeTransaction(db, (docId: number, vectors: Float32Array[]) => {
    vectors.forEach((v, i) => {
      const id = q.chunk.run(docId, model, i).lastInsertRowid;
      q.vector.run(BigInt(id), v);
    });
    q.done.run(docId, model);
  });

  return {
    async pending(limit) {
      return q.pending.all(model, limit) as { id: number; url: string; title: string }[];
    },
    async put(docId, vectors) {
      put(docId, vectors);
    },
    async nearest(vector, k) {
      return q.knn.all(vector, k) as VectorHit[];
    },
    async prune() {
      const ids = q.stale.pluck().all(model) as number[];
      writeTransaction(db, () => {
        for (const id of ids) {
          q.dropVector.run(BigInt(id));
          q.dropChunk.run(id);
        }
      })();
      return ids.length;
    },
  };
}
