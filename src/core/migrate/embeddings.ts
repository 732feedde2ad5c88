/**
 * Document embeddings on the way to PostgreSQL. SQLite keeps each vector by its index chunk id, which
 * means nothing on another machine; PostgreSQL keeps it by the SHA-256 of the exact text embedded
 * (store/pg/embeddings.ts), so replicas find it instead of paying the provider again. The text is
 * rebuilt as the semantic search made it (`chunksOf` of the document's title and text), and a document
 * is copied only when that is certain: its index entry is of the document as stored now, and it has as
 * many vectors as chunks. Vectors already stored are kept (a second run writes nothing).
 */
import type { SharedEmbeddings } from '../../store/contracts/embeddings.js';
import type { Db } from '../../store/sqlite/database.js';
import type { EmbeddedDoc } from '../../store/contracts/embedded-chunks.js';
import { countEmbeddedDocs, embeddedDocs } from '../../store/sqlite/embedded-chunks.js';
import { entryHash } from '../search/index-entry.js';
import { chunksOf } from '../search/semantic.js';

/** How far the copy is, reported like a copied table's (the table `embedding_vectors`). */
export interface EmbeddingsProgress {
  table: 'embedding_vectors';
  /** Embedded documents read so far. */
  copied: number;
  /** Embedded documents in the directory. */
  total: number;
  /** Vectors this run stored. */
  written: number;
  finished: boolean;
}

/** What the embeddings copy did. */
export interface EmbeddingsCopy {
  /** Vectors of the directory's documents now in PostgreSQL (stored by this run, or there already). */
  vectors: number;
  /** Documents left out: changed since they were embedded, or missing vectors. */
  stale: number;
}

interface DocRow {
  title: string;
  text: string;
  content_hash: string;
  published_date: string | null;
}

/** The texts the semantic search embedded for `doc`, or undefined when they cannot be rebuilt for certain. */
function textsOf(doc: EmbeddedDoc, row: DocRow | undefined): string[] | undefined {
  if (!row) return undefined;
  const hash = entryHash({ contentHash: row.content_hash, title: row.title, publishedDate: row.published_date });
  if (hash !== doc.entryHash) return undefined;
  const texts = chunksOf(row.title, row.text);
  return texts.length === doc.vectors.length ? texts : undefined;
}

/** Copies the vectors of every embedded document of `source` into `shared` (PostgreSQL's, from the composition root). */
export async function copyEmbeddings(
  source: Db,
  shared: SharedEmbeddings,
  onProgress?: (progress: EmbeddingsProgress) => void,
): Promise<EmbeddingsCopy> {
  const document = source.prepare('SELECT title, text, content_hash, published_date FROM documents WHERE url = ?');
  const total = countEmbeddedDocs(source);
  const recorded = new Set<string>();
  const done: EmbeddingsCopy = { vectors: 0, stale: 0 };
  let seen = 0;
  let written = 0;
  for (const page of embeddedDocs(source)) {
    const byModel = new Map<string, { dims: number; entries: { text: string; vector: Float32Array }[] }>();
    for (const doc of page) {
      const texts = textsOf(doc, document.get(doc.url) as DocRow | undefined);
      if (!texts) {
        done.stale++;
        continue;
      }
      const group = byModel.get(doc.model) ?? { dims: doc.dims, entries: [] };
      group.entries.push(...texts.map((text, i) => ({ text, vector: doc.vectors[i]! })));
      byModel.set(doc.model, group);
    }
    for (const [model, { dims, entries }] of byModel) {
      // the size replicas will expect, unless one already recorded the model's size
      if (!recorded.has(model) && (await shared.dimensionsOf(model)) === undefined) await shared.recordDimensions(model, dims); // prettier-ignore
      recorded.add(model);
      const found = await shared.find(
        model,
        dims,
        entries.map((e) => e.text),
      );
      const missing = entries.filter((_, i) => !found[i]);
      if (missing.length > 0) await shared.store(model, dims, missing);
      done.vectors += entries.length;
      written += missing.length;
    }
    seen += page.length;
    onProgress?.({ table: 'embedding_vectors', copied: seen, total, written, finished: false });
  }
  onProgress?.({ table: 'embedding_vectors', copied: seen, total, written, finished: true });
  return done;
}
