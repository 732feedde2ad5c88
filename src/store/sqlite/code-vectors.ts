/**
 * Vectors of Trawl's own code model: one per code chunk (keyed by its index id), in the vec0 table of the
 * model's version (`vectorTable(version, dims, 'code_vectors')`), with the `code_vec_chunks` and
 * `code_embedded` rows the provider's code embeddings use too. Synchronous, so the code index writes a
 * chunk's vector in the transaction that writes the chunk. A version's scores are never mixed with
 * another's: each reads its own table, and other versions are dropped once every chunk has this one's.
 */
import type { Db } from './database.js';
import { CODE_VECTORS, createVectorsRepo, vectorTable } from './vectors.js';
import type { CodeVectorsRepo } from '../contracts/code-vectors.js';

/** The versions of Trawl's code models start so (a provider's model names never do). */
export const CODE_MODEL_PREFIX = 'trawl-code-';

/** The vectors repository of `version` at `dims` dimensions over `db`. */
export function createCodeVectorsRepo(db: Db, version: string, dims: number): CodeVectorsRepo {
  const t = CODE_VECTORS;
  createVectorsRepo(db, version, dims, t); // loads sqlite-vec into the connection, creates the vec0 table
  const table = vectorTable(version, dims, t.vectors);
  const q = {
    chunk: db.prepare(`INSERT INTO ${t.chunks} (doc_id, model, chunk) VALUES (?, ?, 0)`),
    vector: db.prepare(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`),
    done: db.prepare(`INSERT OR IGNORE INTO ${t.embedded} (doc_id, model) VALUES (?, ?)`),
    rowsOf: db.prepare(`SELECT id FROM ${t.chunks} WHERE doc_id = ? AND model = ?`).pluck(),
    dropChunk: db.prepare(`DELETE FROM ${t.chunks} WHERE id = ?`),
    dropVector: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    undone: db.prepare(`DELETE FROM ${t.embedded} WHERE doc_id = ? AND model = ?`),
    pending: db
      .prepare(
        `SELECT d.id FROM ${t.docs} d WHERE NOT EXISTS
        (SELECT 1 FROM ${t.embedded} e WHERE e.doc_id = d.id AND e.model = ?) ORDER BY d.id DESC LIMIT ?`,
      )
      .pluck(),
    knn: db.prepare(`SELECT c.doc_id AS id, v.distance AS distance FROM
      (SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?) v
      JOIN ${t.chunks} c ON c.id = v.rowid ORDER BY v.distance`),
    count: db.prepare(`SELECT COUNT(*) FROM ${t.embedded} WHERE model = ?`).pluck(),
    staleDone: db.prepare(`DELETE FROM ${t.embedded} WHERE model = ?
      AND NOT EXISTS (SELECT 1 FROM ${t.docs} d WHERE d.id = doc_id)`),
    others: db
      .prepare(
        `SELECT model FROM ${t.embedded} WHERE model LIKE '${CODE_MODEL_PREFIX}%' AND model != ?
        UNION SELECT model FROM ${t.chunks} WHERE model LIKE '${CODE_MODEL_PREFIX}%' AND model != ?`,
      )
      .pluck(),
    vecTables:
      db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE '${t.vectors}\\_%' ESCAPE '\\'
        AND sql LIKE 'CREATE VIRTUAL TABLE%'`),
    stale: db
      .prepare(
        `SELECT DISTINCT c.doc_id FROM ${t.chunks} c WHERE c.model = ?
        AND NOT EXISTS (SELECT 1 FROM ${t.docs} d WHERE d.id = c.doc_id)`,
      )
      .pluck(),
    dropRows: db.prepare(`DELETE FROM ${t.chunks} WHERE model = ?`),
    dropDone: db.prepare(`DELETE FROM ${t.embedded} WHERE model = ?`),
  };
  const removeNow = (ids: number[]) => {
    for (const id of ids) {
      for (const row of q.rowsOf.all(id, version) as number[]) {
        q.dropVector.run(BigInt(row));
        q.dropChunk.run(row);
      }
      q.undone.run(id, version);
    }
  };
  return {
    version,
    putNow(entries) {
      for (const { id, vector } of entries) {
        if (vector) q.vector.run(BigInt(q.chunk.run(id, version).lastInsertRowid), vector);
        q.done.run(id, version);
      }
    },
    removeNow,
    pending: (limit) => q.pending.all(version, limit) as number[],
    nearest(vector, k) {
      const rows = q.knn.all(vector, k) as { id: number; distance: number }[];
      return rows.map((r) => ({ id: r.id, cosine: 1 - r.distance }));
    },
    count: () => q.count.get(version) as number,
    prune() {
      const stale = q.stale.all(version) as number[];
      db.transaction(() => {
        removeNow(stale);
        q.staleDone.run(version);
      }).immediate();
      return stale.length;
    },
    dropOtherVersions() {
      const others = q.others.all(version, version) as string[];
      const tables = q.vecTables.all() as { name: string; sql: string }[];
      db.transaction(() => {
        for (const { name, sql } of tables) {
          const size = Number(/float\[(\d+)\]/.exec(sql)?.[1]);
          if (name !== table && others.some((m) => vectorTable(m, size, t.vectors) === name)) {
            db.exec(`DROP TABLE ${name}`);
          }
        }
        for (const model of others) {
          q.dropRows.run(model);
          q.dropDone.run(model);
        }
      }).immediate();
      return others;
    },
  };
}
