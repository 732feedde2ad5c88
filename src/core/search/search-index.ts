/**
 * The search index as the core uses it: kept in step with the documents store (step 2 of the documents'
 * write path, core/documents/write-path.ts: every write indexes in the same transaction), rebuildable
 * from it, and queried by lexical rank and exact phrases.
 */
import { writeTransaction, type Db } from '../../store/sqlite/database.js';
import {
  createSearchIndexRepo,
  type IndexTables,
  type SearchIndexRepo,
} from '../../store/search-index/search-index.repo.js';
import type { IndexedDoc } from '../../store/search-index/search-index.types.js';
import type { MergeScheduler } from '../../store/search-index/segment-merger.js';
import { analyzeQuery, type AnalyzedQuery } from './analyzer.js';
import { createDocTable, type DocTable } from './doc-table.js';
import type { AnalysisPool } from './analysis-pool.js';
import { entryHash, streamOf, toIndexEntry } from './index-entry.js';
import { createPostingsCache } from './ranking/postings-cache.js';
import { rank, type RankOptions } from './ranking/rank.js';
import { FIELD_WEIGHTS } from './ranking/scored-postings.js';
import type { Hit } from './ranking/top-k.js';
import { createPhraseMatcher, type PhraseMatcher } from './phrases.js';
import type { DocumentsRepo, DocumentRecord } from '../../store/contracts/documents.js';

/** The derived local index over the documents store: its query path stays synchronous (SQLite in process). */
export interface SearchIndex {
  readonly repo: SearchIndexRepo;
  readonly table: DocTable;
  /** Indexes documents (skipping unchanged ones). Joins the caller's transaction when there is one. */
  index(docs: DocumentRecord[]): number;
  /**
   * Analyzes documents about to be indexed in the analysis pool's threads, so that `index` finds their
   * entries ready (a batch of a crawl or an import; without a pool, nothing to do).
   */
  prepare(docs: DocumentRecord[]): Promise<void>;
  /** Another connection (the writer thread) committed to the index: the in-memory table looks again. */
  noteWrite(): void;
  /**
   * After a write has committed: merges segments if they piled up (pokes the merge worker, or merges
   * inline without one). `index` does it itself outside a transaction; a caller that indexed inside its
   * own transaction calls it after the commit.
   */
  settle(): void;
  /** Waits until no merge is pending (benches and tests). */
  merged(): Promise<void>;
  /** Removes documents by URL. */
  remove(urls: string[]): number;
  /** Re-indexes every stored document; resolves to the count. */
  rebuild(onProgress?: (done: number) => void): Promise<number>;
  /**
   * Rebuilds the index when a migration emptied it (an upgrade that changed its format); one process
   * does it. Resolves to the documents indexed, or null when nothing was to be done.
   */
  rebuildIfMarked(onProgress?: (done: number) => void): Promise<number | null>;
  /** Ranks documents for a natural-language query (never parsed as syntax); `urls` names the hits. */
  search(query: string, options: RankOptions): Hit[];
  /** Ranks documents for an analyzed (possibly expanded) query. */
  searchAnalyzed(query: AnalyzedQuery, options: RankOptions): Hit[];
  /** Proximity streams (title and body terms by position) of documents, analyzed again from their stored text. */
  streams(ids: number[]): Map<number, string>;
  /** Documents containing `term` (replaced ones included until a merge). */
  docFrequency(term: string): number;
  /** Company entities stored with documents, by id. */
  entities(ids: number[]): Map<number, unknown[]>;
  /** Whether a document's exact words hold `phrase` (in `scope`: the whole text, or title + first 1000 words). */
  phraseMatches(phrase: string, scope: 'all' | 'head'): PhraseMatcher;
  urls(ids: number[]): Map<number, string>;
  /** Ids of indexed documents by URL (as stored). */
  ids(urls: string[]): Map<string, number>;
  /** Documents in the index. */
  count(): number;
}

const BATCH = 500;

/** Which tables an index lives in and how its four fields weigh (web pages by default). */
export interface IndexOptions {
  tables?: IndexTables;
  /** Merges in a worker thread (the server's); without one, segments are merged inline after writes. */
  merges?: MergeScheduler;
  /** Analyzes batches in worker threads (`prepare`); without one, documents are analyzed as they are written. */
  analysis?: AnalysisPool;
  /** Memory for decoded posting lists of recently queried terms (default 512 MiB). */
  cacheBytes?: number;
  /** Field weights in `FIELDS` order (default: title 2, headings 1, body 1, URL 1). */
  weights?: readonly number[];
}

export function createSearchIndex(
  db: Db,
  documents: Pick<DocumentsRepo, 'all'>,
  options: IndexOptions = {},
): SearchIndex {
  const t = options.tables ?? 'search';
  const weights = options.weights ?? FIELD_WEIGHTS;
  const repo = createSearchIndexRepo(db, t);
  const table = createDocTable(db, repo);
  const postings = createPostingsCache(repo, table, options.cacheBytes ?? 512 * 2 ** 20, weights);
  const idsOf = db.prepare(`SELECT id, url FROM ${t}_docs WHERE url IN (SELECT value FROM json_each(?))`);
  const urlsOf = db.prepare(`SELECT id, url FROM ${t}_docs WHERE id IN (SELECT value FROM json_each(?))`);
  const entitiesOf = db.prepare(
    `SELECT id, entities FROM ${t}_docs WHERE entities IS NOT NULL AND id IN (SELECT value FROM json_each(?))`,
  );

  // entries analyzed ahead of their write (`prepare`), by URL; bounded, in case a write never comes
  const ready = new Map<string, IndexedDoc>();
  const entryOf = (doc: DocumentRecord, hash: string): IndexedDoc => {
    const early = ready.get(doc.url);
    if (early) ready.delete(doc.url);
    return early?.contentHash === hash ? early : toIndexEntry(doc);
  };
  const write = writeTransaction(db, (docs: DocumentRecord[]) => {
    const entries: IndexedDoc[] = [];
    const indexed = repo.hashesOf(docs.map((d) => d.url));
    for (const doc of docs) {
      const hash = entryHash(doc);
      if (indexed.get(doc.url) !== hash) entries.push(entryOf(doc, hash));
    }
    repo.write(entries);
    return entries.length;
  });
  const readStreams = (ids: number[]) => {
    const out = new Map<number, string>();
    for (const [id, { title, text }] of repo.texts(ids)) out.set(id, streamOf(title, text));
    return out;
  };

  const api: SearchIndex = {
    repo,
    table,
    index(docs) {
      if (docs.length === 0) return 0;
      const n = write(docs);
      table.noteWrite();
      if (!db.inTransaction) api.settle();
      return n;
    },
    async prepare(docs) {
      if (!options.analysis) return;
      const indexed = repo.hashesOf(docs.map((d) => d.url));
      const changed = docs.filter((d) => indexed.get(d.url) !== entryHash(d));
      const entries = await options.analysis.entries(changed);
      if (ready.size > 20_000) ready.clear();
      for (const e of entries) ready.set(e.url, e);
    },
    noteWrite: () => table.noteWrite(),
    settle() {
      if (options.merges) options.merges.poke();
      else if (repo.maybeMerge()) table.noteWrite();
    },
    async merged() {
      await options.merges?.idle();
      table.noteWrite();
    },
    remove(urls) {
      const n = writeTransaction(db, () => repo.remove(urls))();
      table.noteWrite();
      return n;
    },
    async rebuild(onProgress) {
      writeTransaction(db, () => repo.clear())();
      table.noteWrite();
      let done = 0;
      let batch: DocumentRecord[] = [];
      for await (const doc of documents.all()) {
        batch.push(doc);
        if (batch.length === BATCH) {
          done += api.index(batch);
          batch = [];
          onProgress?.(done);
        }
      }
      done += api.index(batch);
      repo.mergeAll();
      table.noteWrite();
      onProgress?.(done);
      return done;
    },
    async rebuildIfMarked(onProgress) {
      if (!writeTransaction(db, () => repo.claimRebuild())()) return null;
      try {
        return await api.rebuild(onProgress);
      } catch (err) {
        repo.markRebuild();
        throw err;
      }
    },
    search(query, options) {
      return api.searchAnalyzed(analyzeQuery(query), options);
    },
    searchAnalyzed(query, options) {
      return rank(postings, table, query, { weights, ...options });
    },
    streams: readStreams,
    docFrequency: (term) => repo.docFrequency(term),
    entities(ids) {
      const rows = entitiesOf.all(JSON.stringify(ids)) as { id: number; entities: string }[];
      return new Map(rows.map((r) => [r.id, JSON.parse(r.entities) as unknown[]]));
    },
    phraseMatches(phrase, scope) {
      table.refresh();
      return createPhraseMatcher(phrase, scope, { read: postings.read, texts: (ids) => repo.texts(ids) });
    },
    urls(ids) {
      if (ids.length === 0) return new Map();
      const rows = urlsOf.all(JSON.stringify(ids)) as { id: number; url: string }[];
      return new Map(rows.map((r) => [r.id, r.url]));
    },
    ids(urls) {
      if (urls.length === 0) return new Map();
      const rows = idsOf.all(JSON.stringify(urls)) as { id: number; url: string }[];
      return new Map(rows.map((r) => [r.url, r.id]));
    },
    count: () => repo.stats().docs,
  };
  return api;
}
