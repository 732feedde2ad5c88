/**
 * The search index's embedded chunks read back with their vectors, for `trawl migrate`, which stores
 * them in PostgreSQL keyed by the text embedded rather than by this machine's index ids. Reads only.
 */
import * as sqliteVec from 'sqlite-vec';
import type { Db } from './database.js';
import { vectorTable } from './vectors.js';
import type { EmbeddedDoc } from '../contracts/embedded-chunks.js';

/** Each model's vec0 table and vector size, as found in the database. */
function modelTables(db: Db): { model: string; dims: number; table: string }[] {
  const models = db.prepare('SELECT DISTINCT model FROM search_chunks').pluck().all() as string[];
  const tables = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'search\\_vectors\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
    ) // prettier-ignore
    .all() as { name: string; sql: string }[];
  return tables.flatMap((t) => {
    const dims = Number(/float\[(\d+)\]/.exec(t.sql)?.[1]);
    const model = models.find((m) => vectorTable(m, dims) === t.name);
    return model === undefined ? [] : [{ model, dims, table: t.name }];
  });
}

/** Indexed documents embedded, counted once per model (to size progress). */
export function countEmbeddedDocs(db: Db): number {
  return db.prepare('SELECT COUNT(*) FROM (SELECT DISTINCT c.doc_id, c.model FROM search_chunks c JOIN search_docs d ON d.id = c.doc_id)').pluck().get() as number; // prettier-ignore
}

/**
 * Every indexed document's embedded chunks, per model, `pageSize` documents at a time (the connection is
 * free between pages). Chunks of documents no longer indexed are left out, as the search leaves them.
 */
export function* embeddedDocs(db: Db, pageSize = 200): Generator<EmbeddedDoc[]> {
  sqliteVec.load(db);
  for (const { model, dims, table } of modelTables(db)) {
    const docs = db.prepare(`SELECT d.id, d.url, d.content_hash FROM search_docs d WHERE d.id > ?
      AND EXISTS (SELECT 1 FROM search_chunks c WHERE c.doc_id = d.id AND c.model = ?) ORDER BY d.id LIMIT ?`);
    const chunks = db.prepare(`SELECT id FROM search_chunks WHERE doc_id = ? AND model = ? ORDER BY chunk`).pluck();
    const vector = db.prepare(`SELECT embedding FROM ${table} WHERE rowid = ?`).pluck();
    let after = 0;
    for (;;) {
      const page = docs.all(after, model, pageSize) as { id: number; url: string; content_hash: string }[];
      if (page.length === 0) break;
      yield page.map((d) => ({
        model,
        dims,
        url: d.url,
        entryHash: d.content_hash,
        // a chunk without its vector leaves the list short, and the caller leaves the document out
        vectors: (chunks.all(d.id, model) as number[]).flatMap((id) => {
          const bytes = vector.get(BigInt(id)) as Buffer | undefined;
          return bytes ? [new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))] : []; // prettier-ignore
        }),
      }));
      after = page.at(-1)!.id;
    }
  }
}
