/**
 * The code index: code chunks (from folders, repositories, packages, imports and documentation pages)
 * in the search index's machinery (segments, BM25F, exact top-k pruning) over the `code_*` tables,
 * with code fields: the symbol, the doc comment and comments, the identifiers, and the rest (path
 * words and string literals). Each file's chunks are replaced together, in one transaction.
 */
import type { CodeChunk } from '../../../store/contracts/code-files.js';
import { writeTransaction, type Db } from '../../../store/sqlite/database.js';
import type { IndexedDoc } from '../../../store/search-index/search-index.types.js';
import type { MergeScheduler } from '../../../store/search-index/segment-merger.js';
import { analyzeQuery, type AnalyzedQuery } from '../../search/analyzer.js';
import { createSearchIndex, type SearchIndex } from '../../search/search-index.js';
import { createChunkTexts, entryOf, type PackedBlock, type StoredText } from './chunk-texts.js';
import { analyzeChunk, type ChunkAnalysis } from './code-fields.js';
import type { ChunkVectorsHook } from './code-vectors.js';
import { RELATED_WEIGHT, relatedTerms } from './lexicon.js';

/** A chunk to index: what the chunker cut, and the source it belongs to. */
export interface ChunkRecord extends CodeChunk {
  /** Its terms and stored text made ahead, in a code analysis thread (`code-analysis.ts`); else made as written. */
  prepared?: PreparedChunk;
}

/** A chunk analyzed ahead of its write: its terms, and its text in a block packed with its batch's. */
export interface PreparedChunk {
  analysis: ChunkAnalysis;
  /** Absent when the batch's texts were too few for a block of their own (they join the newest block). */
  text?: { block: PackedBlock; at: number; codeLen: number; docAt: number | null; docLen: number | null };
}

/** The new chunks of one file (none: the file is gone) and its content hash. */
export interface FileChunks {
  path: string;
  chunks: ChunkRecord[];
  hash: string;
}

/** A ranked chunk, with its index id. */
export interface CodeHit extends ChunkRecord {
  id: number;
  score: number;
}

/** Field weights, `FIELDS` order of the store: symbol, doc and comments, identifiers, other words. */
export const CODE_WEIGHTS = [4, 3, 1, 0.5] as const;
/** Score multiplier of a chunk in a language the query names ("… in python"). */
export const LANGUAGE_PREFERENCE = 1.3;

/**
 * Languages by bit in the index's `categories` column (the code index stores the chunk's language
 * there). Stored data depends on this order: append only.
 */
const LANGUAGES = [
  'python',
  'javascript',
  'typescript',
  'go',
  'rust',
  'java',
  'kotlin',
  'c',
  'cpp',
  'csharp',
  'ruby',
  'php',
  'swift',
  'scala',
  'shell',
  'sql',
  'markdown',
  'json',
  'yaml',
  'toml',
  'html',
  'css',
];
const OTHER_BIT = 30;
function languageBit(language: string): number {
  const i = LANGUAGES.indexOf(language);
  return 1 << (i < 0 ? OTHER_BIT : i);
}

/** The locator of a chunk: unique per source, path and line range. */
export function chunkUrl(c: Pick<ChunkRecord, 'source' | 'path' | 'startLine' | 'endLine'>): string {
  return `code://${encodeURIComponent(c.source)}/${c.path}#L${c.startLine}-L${c.endLine}`;
}

/** A chunk → its index entry (`analysis`: its terms, when analyzed already). */
export function toCodeEntry(
  c: ChunkRecord,
  indexedAt: number,
  hash: string,
  analysis: ChunkAnalysis = analyzeChunk(c),
): IndexedDoc {
  const { terms, freqs, lengths } = analysis;
  return {
    url: chunkUrl(c),
    host: c.source,
    terms,
    freqs,
    lengths,
    positions: new Uint8Array(0),
    positionEnds: new Uint32Array(terms.length),
    publishedAt: null,
    crawledAt: indexedAt,
    categories: languageBit(c.language),
    unsafe: false,
    country: null,
    entities: null,
    contentHash: hash,
  };
}

/** A code query: its words (language words taken out by the caller) with related words at a low weight. */
export function analyzeCodeQuery(text: string): AnalyzedQuery {
  const query = analyzeQuery(text);
  const terms = new Map(query.terms);
  for (const term of query.terms.keys()) {
    for (const r of relatedTerms(term)) if (!terms.has(r)) terms.set(r, RELATED_WEIGHT);
  }
  return { terms, sequence: query.sequence };
}

/** The code chunks and their BM25 index: written by file, searched by query. */
export interface CodeIndex {
  readonly index: SearchIndex;
  /** Replaces the chunks of one file of a source (none: the file is gone). Atomic. */
  replaceFile(source: string, path: string, chunks: ChunkRecord[], hash: string, indexedAt: number): void;
  /** The same for many files at once, in one transaction (an indexing batch). */
  replaceFiles(source: string, files: FileChunks[], indexedAt: number): void;
  /** After a write in the caller's transaction has committed: the merges it may call for. */
  settle(): void;
  /** The best chunks for a query; chunks in `languages` are preferred, not required. */
  search(query: string, options: { limit: number; languages?: string[] }): CodeHit[];
  /** Chunks indexed. */
  count(): number;
  /** The chunks of index ids (the semantic search's answers), in the order given; score 0. */
  hitsByIds(ids: number[]): CodeHit[];
  /** What the embeddings of a chunk are made of: its symbol, doc and code. */
  textOf(url: string): string | undefined;
  /** Re-indexes every stored chunk when a migration emptied the index; the count, or null when not needed. */
  rebuildIfMarked(): Promise<number | null>;
}

/** Chunks re-indexed per transaction by a rebuild. */
const REBUILD_BATCH = 1000;

/** `weights`: field weights other than `CODE_WEIGHTS` (benchmarks compare them). */
export function createCodeIndex(
  db: Db,
  options: { weights?: readonly number[]; merges?: MergeScheduler; vectors?: ChunkVectorsHook } = {},
): CodeIndex {
  // chunks are written by `replaceFile`, not rebuilt from the documents store
  const noDocuments = { async *all() {} };
  const index = createSearchIndex(db, noDocuments, {
    tables: 'code',
    weights: options.weights ?? CODE_WEIGHTS,
    merges: options.merges,
    cacheBytes: 64 * 2 ** 20, // chunks' lists are short: code queries rarely need more
  });
  // a chunk's row has its index document's id
  const texts = createChunkTexts(db);
  const linesOfFile = db
    .prepare('SELECT start_line, end_line, text, id FROM code_chunks WHERE source = ? AND path = ?')
    .raw();
  const deleteChunks = db.prepare('DELETE FROM code_chunks WHERE source = ? AND path = ?');
  const sourceHasChunks = db.prepare('SELECT 1 FROM code_chunks WHERE source = ? LIMIT 1').pluck();
  const insertChunk = db.prepare(`INSERT INTO code_chunks (id, source, path, start_line, end_line, language, kind,
    symbol, text, text_at, code_len, doc_at, doc_len) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const chunksById = db.prepare('SELECT * FROM code_chunks WHERE id IN (SELECT value FROM json_each(?))');
  const chunkByUrl = db.prepare('SELECT c.* FROM code_docs d JOIN code_chunks c ON c.id = d.id WHERE d.url = ?');
  const lastChunk = db.prepare('SELECT MAX(id) FROM code_chunks').pluck();
  const allChunks = db.prepare(`SELECT c.*, COALESCE(f.hash, '') AS hash FROM code_chunks c
    LEFT JOIN code_files f ON f.source = c.source AND f.path = c.path WHERE c.id > ? AND c.id <= ? ORDER BY c.id LIMIT ?`);
  const renumber = db.prepare('UPDATE code_chunks SET id = ? WHERE id = ?');
  /** Stores chunks (their texts compressed together) under their index ids. */
  const put = (ids: number[], chunks: ChunkRecord[]) => {
    const entries = chunks.map((c) => (c.prepared?.text ? null : entryOf(c.code, c.doc)));
    const places = texts.place(entries.flatMap((e) => (e ? [e.entry] : [])));
    const packed = new Map<PackedBlock, number>(); // blocks packed ahead, by id once stored
    let next = 0;
    chunks.forEach((c, i) => {
      const ahead = c.prepared?.text;
      if (ahead && !packed.has(ahead.block)) packed.set(ahead.block, texts.insert(ahead.block));
      const { text, at } = ahead ? { text: packed.get(ahead.block)!, at: ahead.at } : places[next++]!;
      const { codeLen, docAt, docLen } = ahead ?? entries[i]!;
      insertChunk.run(ids[i], c.source, c.path, c.startLine, c.endLine, c.language, c.kind, c.symbol, text, at, codeLen, docAt, docLen); // prettier-ignore
    });
  };
  const fromRows = (rows: ChunkRow[]): ChunkRecord[] => {
    const read = texts.read(rows);
    return rows.map((r, i) => ({
      source: r.source,
      path: r.path,
      startLine: r.start_line,
      endLine: r.end_line,
      language: r.language,
      kind: r.kind,
      symbol: r.symbol,
      ...read[i]!,
    }));
  };
  // chunks take the ids their index documents got (new ids: above every id there was, so never taken)
  const reindex = writeTransaction(db, (rows: (ChunkRow & { hash: string })[], at: number) => {
    const chunks = fromRows(rows);
    const ids = index.repo.write(chunks.map((c, i) => toCodeEntry(c, at, rows[i]!.hash)));
    rows.forEach((r, i) => renumber.run(ids[i], r.id));
  });

  // the chunks of many files go to the index in one write: one segment per batch, not one per file
  const replace = writeTransaction(db, (source: string, files: FileChunks[], at: number) => {
    const byUrl = new Map<string, { chunk: ChunkRecord; hash: string }>(); // one chunk per URL: the last cut
    const blocks = new Set<number>(); // blocks that held the old chunks
    const removed: number[] = [];
    // a source indexed for the first time has no old chunks to look up, file by file
    const known = sourceHasChunks.get(source) !== undefined;
    for (const { path, chunks: cut, hash } of files) {
      if (known) {
        const old = linesOfFile.all(source, path) as [number, number, number | null, number][];
        index.repo.remove(old.map(([startLine, endLine]) => chunkUrl({ source, path, startLine, endLine })));
        for (const [, , text, id] of old) {
          if (text !== null) blocks.add(text);
          removed.push(id);
        }
        deleteChunks.run(source, path);
      }
      for (const chunk of cut) byUrl.set(chunkUrl(chunk), { chunk, hash });
    }
    texts.release(blocks);
    const chunks = [...byUrl.values()];
    const ids = index.repo.write(
      chunks.map(({ chunk, hash }) => toCodeEntry(chunk, at, hash, chunk.prepared?.analysis)),
    );
    const cut = chunks.map(({ chunk }) => chunk);
    put(ids, cut);
    // the code model's vectors, in this transaction: the old chunks' go, the new ones' come
    options.vectors?.removed(removed);
    options.vectors?.written(ids, cut);
  });

  /** Chunk rows of index ids, as hits in the order given. */
  const hitsOf = (ids: number[], score: (i: number) => number): CodeHit[] => {
    const rows = chunksById.all(JSON.stringify(ids)) as ChunkRow[];
    const chunks = fromRows(rows);
    const byId = new Map(rows.map((r, i) => [r.id, chunks[i]!]));
    return ids.flatMap((id, i) => {
      const chunk = byId.get(id);
      return chunk ? [{ ...chunk, id, score: score(i) }] : [];
    });
  };

  return {
    index,
    replaceFile(source, path, chunks, hash, indexedAt) {
      replace(source, [{ path, chunks, hash }], indexedAt);
      index.table.noteWrite();
      if (!db.inTransaction) index.settle();
    },
    replaceFiles(source, files, indexedAt) {
      replace(source, files, indexedAt);
      index.table.noteWrite();
      if (!db.inTransaction) index.settle();
    },
    search(query, { limit, languages = [] }) {
      const wanted = languages.reduce((bits, l) => bits | languageBit(l), 0);
      // read deeper than asked when a language is preferred, so the preference can reorder
      const depth = wanted ? Math.max(limit * 3, 30) : limit;
      const hits = index.searchAnalyzed(analyzeCodeQuery(query), { limit: depth, proximity: false });
      const scored = hits.map((h) => ({
        id: h.id,
        score: h.score * (wanted && index.table.facts(h.id).categories & wanted ? LANGUAGE_PREFERENCE : 1),
      }));
      scored.sort((a, b) => b.score - a.score || a.id - b.id);
      const top = scored.slice(0, limit);
      return hitsOf(
        top.map((h) => h.id),
        (i) => top[i]!.score,
      );
    },
    settle: () => index.settle(),
    count: () => index.count(),
    hitsByIds(ids) {
      return hitsOf(ids, () => 0);
    },
    async rebuildIfMarked() {
      if (!writeTransaction(db, () => index.repo.claimRebuild())()) return null;
      let done = 0;
      try {
        writeTransaction(db, () => index.repo.clear())();
        const last = (lastChunk.get() as number | null) ?? 0; // chunks renumbered on the way sort above it
        for (let after = Number.MIN_SAFE_INTEGER; ;) {
          const rows = allChunks.all(after, last, REBUILD_BATCH) as (ChunkRow & { hash: string })[];
          if (rows.length === 0) break;
          reindex(rows, Date.now());
          index.settle();
          done += rows.length;
          after = rows.at(-1)!.id;
          await new Promise((resolve) => setImmediate(resolve)); // let requests in between batches
        }
      } catch (err) {
        index.repo.markRebuild();
        throw err;
      } finally {
        index.table.noteWrite();
      }
      return done;
    },
    textOf(url) {
      const row = chunkByUrl.get(url) as ChunkRow | undefined;
      if (!row) return undefined;
      const c = fromRows([row])[0]!;
      return [c.symbol, c.doc, c.code].filter(Boolean).join('\n');
    },
  };
}

interface ChunkRow extends StoredText {
  id: number;
  source: string;
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  kind: string;
  symbol: string | null;
}
