/**
 * Semantic search, when an embeddings provider is configured: indexed documents are embedded in the
 * background (title and text in up to 4 chunks, batched), vectors kept in SQLite (sqlite-vec), and a
 * query's nearest documents are fused with the lexical ranking by the search types that read them.
 * With a shared embeddings store (PostgreSQL, several replicas), chunks another replica embedded are
 * taken from it and only new ones are sent to the provider; queries always go to the provider.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Embedder } from '../../providers/embeddings.js';
import type { Db } from '../../store/sqlite/database.js';
import type { DocumentsRepo } from '../../store/contracts/documents.js';
import type { VectorTables, VectorsRepo } from '../../store/contracts/vectors.js';
import type { SharedEmbeddings } from '../../store/contracts/embeddings.js';
import { createVectorsRepo, SEARCH_VECTORS } from '../../store/sqlite/vectors.js';

/** Characters per chunk, cut at a paragraph (else a sentence) boundary when one is near. */
const CHUNK_CHARS = 1500;
/** Chunks embedded per document: the start of a page says what it is about. */
const MAX_CHUNKS = 4;
/** Documents embedded per round of the background loop. */
const ROUND_DOCS = 32;
/** Pause between rounds when nothing is pending. */
const IDLE_MS = 5000;
/** Query vectors remembered (repeated queries do not call the provider again). */
const QUERY_CACHE = 500;

export interface SemanticSearch {
  /** Embeds up to `limit` pending documents; returns how many were embedded. */
  embedPending(limit?: number): Promise<number>;
  /** Starts the background loop that embeds new documents (the server and `trawl mcp` run it). */
  start(): void;
  stop(): Promise<void>;
  /** Document ids nearest to the query, best first (at most `k`). Throws when the provider fails. */
  nearest(query: string, k: number, signal?: AbortSignal): Promise<number[]>;
}

/** A document's text in chunks: title and text, up to `MAX_CHUNKS` pieces of about `CHUNK_CHARS`. */
export function chunksOf(title: string, text: string): string[] {
  const chunks: string[] = [];
  let rest = `${title}\n\n${text}`.trim();
  while (rest.length > 0 && chunks.length < MAX_CHUNKS) {
    if (rest.length <= CHUNK_CHARS) {
      chunks.push(rest);
      break;
    }
    const window = rest.slice(0, CHUNK_CHARS);
    const para = window.lastIndexOf('\n\n');
    const sentence = window.lastIndexOf('. ');
    const cut = para > CHUNK_CHARS / 2 ? para : sentence > CHUNK_CHARS / 2 ? sentence + 1 : CHUNK_CHARS;
    chunks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  return chunks.filter(Boolean);
}

export function createSemanticSearch(deps: {
  db: Db;
  documents: Pick<DocumentsRepo, 'get'>;
  embedder: Embedder;
  logger: Logger;
  /** The index embedded (default: the search index's documents). */
  tables?: VectorTables;
  /** What is embedded of an indexed item (default: the stored document's title and text). */
  textOf?: (url: string, title: string) => string | undefined | Promise<string | undefined>;
  /** Vectors shared by replicas: asked before the provider, and given what the provider answers. */
  shared?: SharedEmbeddings;
}): SemanticSearch {
  const { embedder, logger, shared } = deps;
  const model = embedder.model;
  let index: { repo: VectorsRepo; dims: number } | null = null;
  const queries = new Map<string, Float32Array>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;

  /** The vector size: as a replica recorded it, else asked of the provider (and recorded). */
  const dimensions = async (): Promise<number> => {
    const recorded = await shared?.dimensionsOf(model);
    if (recorded) return recorded;
    const [probe] = await embedder.embed(['dimension probe']);
    await shared?.recordDimensions(model, probe!.length);
    return probe!.length;
  };
  const indexFor = async () => {
    if (index) return index;
    const dims = await dimensions();
    index = { repo: createVectorsRepo(deps.db, model, dims, deps.tables ?? SEARCH_VECTORS), dims };
    return index;
  };
  const repoFor = async (): Promise<VectorsRepo> => (await indexFor()).repo;

  /** Vectors of document chunks: those the shared store has, the others from the provider, then stored. */
  const embedChunks = async (texts: string[]): Promise<Float32Array[]> => {
    if (!shared) return (await embedder.embed(texts)).map((v) => Float32Array.from(v));
    const { dims } = await indexFor();
    const found = await shared.find(model, dims, texts);
    const missing = [...new Set(texts.filter((_, i) => !found[i]))];
    if (missing.length === 0) return found as Float32Array[];
    const fresh = (await embedder.embed(missing)).map((v) => Float32Array.from(v));
    const wrong = fresh.find((v) => v.length !== dims);
    if (wrong) {
      // the provider changed its vector size: record the new one, so this process (and any starting) use it
      await shared.recordDimensions(model, wrong.length);
      index = null;
      throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', `embeddings provider (${model}) answered ${wrong.length} dimensions, not the ${dims} recorded; the new size is recorded`); // prettier-ignore
    }
    await shared.store(
      model,
      dims,
      missing.map((text, i) => ({ text, vector: fresh[i]! })),
    );
    const byText = new Map(missing.map((text, i) => [text, fresh[i]!]));
    return texts.map((text, i) => found[i] ?? byText.get(text)!);
  };

  const api: SemanticSearch = {
    async embedPending(limit = ROUND_DOCS) {
      const vectors = await repoFor();
      const textOf = deps.textOf ?? (async (url: string) => (await deps.documents.get(url))?.text);
      const docs: { id: number; chunks: string[] }[] = [];
      for (const d of await vectors.pending(limit)) {
        const text = await textOf(d.url, d.title);
        if (text !== undefined) docs.push({ id: d.id, chunks: chunksOf(d.title, text) });
      }
      if (docs.length === 0) return 0;
      const embedded = await embedChunks(docs.flatMap((d) => d.chunks));
      let at = 0;
      for (const d of docs) {
        await vectors.put(d.id, embedded.slice(at, at + d.chunks.length));
        at += d.chunks.length;
      }
      return docs.length;
    },
    start() {
      stopped = false;
      const round = async () => {
        if (stopped) return;
        let n = 0;
        try {
          n = await api.embedPending();
          if (n === 0) await index?.repo.prune();
        } catch (err) {
          logger.warn({ reason: (err as Error).message }, 'embedding documents failed; retrying later');
        }
        if (!stopped) timer = setTimeout(() => void (running = round()), n > 0 ? 0 : IDLE_MS).unref();
      };
      running = round();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
    async nearest(query, k, signal) {
      const vectors = await repoFor();
      let v = queries.get(query);
      if (!v) {
        const [e] = await embedder.embed([query], signal);
        v = Float32Array.from(e!);
        if (queries.size >= QUERY_CACHE) queries.delete(queries.keys().next().value!);
        queries.set(query, v);
      }
      const ids: number[] = [];
      for (const hit of await vectors.nearest(v, Math.min(4096, k * MAX_CHUNKS))) {
        if (!ids.includes(hit.docId)) ids.push(hit.docId);
        if (ids.length >= k) break;
      }
      return ids;
    },
  };
  return api;
}
