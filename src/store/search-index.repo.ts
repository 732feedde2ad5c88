/**
 * The search index's storage: documents, postings in segments (a small open segment takes new
 * documents; sealed segments are merged when they pile up), tombstones, BM25 statistics, and an FTS5
 * table of the exact words. Everything is written in the caller's transaction; see docs/search.md.
 */
import type { Db } from './database.js';

/** Fields of a document as the ranking sees them, in this order in every `Uint8Array(4)` of frequencies. */
export const FIELDS = ['title', 'headings', 'body', 'url'] as const;
export const FIELD_COUNT = FIELDS.length;

/** A document, analyzed, ready to be written. */
export interface IndexedDoc {
  url: string;
  host: string;
  title: string;
  /** Terms counted per field (`FIELDS` order), each capped at 255. */
  terms: Map<string, Uint8Array>;
  /** Field lengths in terms, `FIELDS` order. */
  lengths: number[];
  /** Title and body terms by position, space-separated, '' for a stopword: proximity reads it. */
  stream: string;
  publishedAt: number | null;
  crawledAt: number;
  /** Category bit mask (see core/search/categories). */
  categories: number;
  unsafe: boolean;
  country: string | null;
  /** Company entities as JSON, or null. */
  entities: string | null;
  contentHash: string;
  /** Exact words for phrases: title, first 1000 words, the rest. */
  text: { title: string; head: string; tail: string };
}

/** The per-document facts the ranking and the filters keep in memory. */
export interface DocRow {
  id: number;
  host: string;
  lengths: Buffer;
  published_at: number | null;
  crawled_at: number;
  categories: number;
  unsafe: number;
  country: string | null;
}

/** One segment's postings of a term: `n` document ids (uint32 LE) followed by `n × 4` frequencies. */
export interface PostingList {
  n: number;
  data: Buffer;
}

/** Documents an open segment takes before it is sealed. */
const SEGMENT_DOCS = 2000;
/** Sealed segments beyond this many are merged, the smallest first. */
const MAX_SEALED = 8;

export function encodeLengths(lengths: number[]): Buffer {
  const buf = Buffer.alloc(4 * FIELD_COUNT);
  lengths.forEach((len, i) => buf.writeUInt32LE(Math.min(len, 0xffffffff), 4 * i));
  return buf;
}

function packPostings(ids: number[], freqs: Uint8Array[]): Buffer {
  const n = ids.length;
  const buf = Buffer.alloc(n * 4 + n * FIELD_COUNT);
  ids.forEach((id, i) => buf.writeUInt32LE(id, 4 * i));
  freqs.forEach((f, i) => buf.set(f, n * 4 + i * FIELD_COUNT));
  return buf;
}

/**
 * Joins posting lists (each in ascending id order) into one in ascending id order, dropping the
 * documents in `drop`. Segments merged out of turn can interleave, so the result is sorted when needed:
 * the ranking gallops through lists by id.
 */
export function concatPostings(lists: PostingList[], drop?: Set<number>): PostingList {
  let ids: number[] = [];
  let freqs: Uint8Array[] = [];
  for (const { n, data } of lists) {
    for (let i = 0; i < n; i++) {
      const id = data.readUInt32LE(4 * i);
      if (drop?.has(id)) continue;
      ids.push(id);
      freqs.push(data.subarray(n * 4 + i * FIELD_COUNT, n * 4 + (i + 1) * FIELD_COUNT));
    }
  }
  if (ids.some((id, i) => i > 0 && id < ids[i - 1]!)) {
    const order = ids.map((_, i) => i).sort((a, b) => ids[a]! - ids[b]!);
    ids = order.map((i) => ids[i]!);
    freqs = order.map((i) => freqs[i]!);
  }
  return { n: ids.length, data: packPostings(ids, freqs) };
}

/**
 * The table family an index lives in: `search` (web pages and documents) or `code` (code chunks); both
 * have the same tables (migrations 4 and 6), so one implementation serves both.
 */
export type IndexTables = 'search' | 'code';

/**
 * The storage of the derived local index (rebuildable from the documents store): synchronous, written
 * in the caller's SQLite transaction with the documents it derives from.
 */
export interface SearchIndexRepo {
  /** The content hash indexed for `url`, or undefined: an unchanged document need not be re-indexed. */
  hashOf(url: string): string | undefined;
  /** Writes documents (replacing any at the same URL). Run inside a transaction. Returns their ids. */
  write(docs: IndexedDoc[]): number[];
  /** Removes documents by URL. Run inside a transaction. Returns how many there were. */
  remove(urls: string[]): number;
  /** Every segment's postings of `term`. */
  postings(term: string): PostingList[];
  /** Documents listing `term` (replaced ones included until a merge); reads no posting data. */
  docFrequency(term: string): number;
  /** Live documents and field length totals. */
  stats(): { docs: number; lengths: number[] };
  /** Document rows with an id above `id`, in id order (the in-memory table loads these). */
  docsSince(id: number): DocRow[];
  maxDocId(): number;
  deletedIds(): number[];
  liveIds(): number[];
  /** Merges sealed segments when more than `MAX_SEALED` pile up. Run inside a transaction. */
  maybeMerge(): boolean;
  /** Merges every segment into one, dropping all tombstones (after a bulk import, or on demand). */
  mergeAll(): void;
  /** Empties the index (a rebuild starts from here). Run inside a transaction. */
  clear(): void;
}

/** The index repository over `db`'s `<tables>_*` tables. */
export function createSearchIndexRepo(db: Db, tables: IndexTables = 'search'): SearchIndexRepo {
  const t = tables;
  const q = {
    docByUrl: db.prepare(`SELECT id, lengths FROM ${t}_docs WHERE url = ?`),
    hashByUrl: db.prepare(`SELECT content_hash FROM ${t}_docs WHERE url = ?`).pluck(),
    insertDoc: db.prepare(`INSERT INTO ${t}_docs (url, host, title, lengths, stream, published_at, crawled_at,
      categories, unsafe, country, entities, content_hash) VALUES (@url, @host, @title, @lengths, @stream,
      @publishedAt, @crawledAt, @categories, @unsafe, @country, @entities, @contentHash)`),
    deleteDoc: db.prepare(`DELETE FROM ${t}_docs WHERE id = ?`),
    tombstone: db.prepare(`INSERT OR IGNORE INTO ${t}_deleted (id) VALUES (?)`),
    insertText: db.prepare(`INSERT INTO ${t}_text (rowid, title, head, tail) VALUES (?, ?, ?, ?)`),
    deleteText: db.prepare(`DELETE FROM ${t}_text WHERE rowid = ?`),
    openSegment: db.prepare(`SELECT id, docs FROM ${t}_segments WHERE sealed = 0 ORDER BY id LIMIT 1`),
    newSegment: db.prepare(`INSERT INTO ${t}_segments (docs, sealed) VALUES (0, 0)`),
    growSegment: db.prepare(`UPDATE ${t}_segments SET docs = docs + ?, sealed = ? WHERE id = ?`),
    sealed: db.prepare(`SELECT id, docs FROM ${t}_segments WHERE sealed = 1 ORDER BY docs, id`),
    posting: db.prepare(`SELECT n, data FROM ${t}_postings WHERE term = ? AND segment = ?`),
    postings: db.prepare(`SELECT n, data FROM ${t}_postings WHERE term = ?`),
    df: db.prepare(`SELECT COALESCE(SUM(n), 0) FROM ${t}_postings WHERE term = ?`).pluck(),
    putPosting: db.prepare(`INSERT OR REPLACE INTO ${t}_postings (term, segment, n, data) VALUES (?, ?, ?, ?)`),
    stat: db.prepare(`SELECT value FROM ${t}_stats WHERE key = ?`).pluck(),
    addStat: db.prepare(`INSERT INTO ${t}_stats (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = value + excluded.value`),
    docsSince: db.prepare(`SELECT id, host, lengths, published_at, crawled_at, categories, unsafe, country
      FROM ${t}_docs WHERE id > ? ORDER BY id`),
    maxDocId: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = '${t}_docs'`).pluck(),
    deleted: db.prepare(`SELECT id FROM ${t}_deleted`).pluck(),
    liveIds: db.prepare(`SELECT id FROM ${t}_docs ORDER BY id`).pluck(),
  };

  const addStats = (lengths: number[], sign: 1 | -1) => {
    q.addStat.run('docs', sign);
    lengths.forEach((len, i) => q.addStat.run(`len:${FIELDS[i]}`, sign * len));
  };

  /** Removes the document at `url` (its postings wait in their segment as a tombstone); true if there was one. */
  const removeOne = (url: string): boolean => {
    const row = q.docByUrl.get(url) as { id: number; lengths: Buffer } | undefined;
    if (!row) return false;
    const lengths = FIELDS.map((_, i) => row.lengths.readUInt32LE(4 * i));
    q.deleteDoc.run(row.id);
    q.deleteText.run(row.id);
    q.tombstone.run(row.id);
    addStats(lengths, -1);
    return true;
  };

  const openSegment = (): { id: number; docs: number } => {
    const open = q.openSegment.get() as { id: number; docs: number } | undefined;
    if (open) return open;
    return { id: Number(q.newSegment.run().lastInsertRowid), docs: 0 };
  };

  /** Appends the batch's postings to the open segment, sealing it when full. */
  const appendPostings = (batch: Map<string, { ids: number[]; freqs: Uint8Array[] }>, docs: number) => {
    const segment = openSegment();
    for (const [term, { ids, freqs }] of batch) {
      const added = { n: ids.length, data: packPostings(ids, freqs) };
      const old = q.posting.get(term, segment.id) as PostingList | undefined;
      const merged = old ? concatPostings([old, added]) : added;
      q.putPosting.run(term, segment.id, merged.n, merged.data);
    }
    const total = segment.docs + docs;
    q.growSegment.run(docs, total >= SEGMENT_DOCS ? 1 : 0, segment.id);
  };

  return {
    hashOf(url) {
      return q.hashByUrl.get(url) as string | undefined;
    },
    write(docs) {
      const batch = new Map<string, { ids: number[]; freqs: Uint8Array[] }>();
      const ids = docs.map((doc) => {
        removeOne(doc.url);
        const id = Number(
          q.insertDoc.run({ ...doc, lengths: encodeLengths(doc.lengths), unsafe: doc.unsafe ? 1 : 0 }).lastInsertRowid,
        );
        q.insertText.run(id, doc.text.title, doc.text.head, doc.text.tail);
        addStats(doc.lengths, 1);
        for (const [term, freq] of doc.terms) {
          let entry = batch.get(term);
          if (!entry) batch.set(term, (entry = { ids: [], freqs: [] }));
          entry.ids.push(id);
          entry.freqs.push(freq);
        }
        return id;
      });
      if (docs.length > 0) appendPostings(batch, docs.length);
      return ids;
    },
    remove(urls) {
      return urls.filter((url) => removeOne(url)).length;
    },
    postings(term) {
      return q.postings.all(term) as PostingList[];
    },
    docFrequency(term) {
      return q.df.get(term) as number;
    },
    stats() {
      const docs = (q.stat.get('docs') as number | undefined) ?? 0;
      return { docs, lengths: FIELDS.map((f) => (q.stat.get(`len:${f}`) as number | undefined) ?? 0) };
    },
    docsSince(id) {
      return q.docsSince.all(id) as DocRow[];
    },
    maxDocId() {
      return (q.maxDocId.get() as number | undefined) ?? 0;
    },
    deletedIds() {
      return q.deleted.all() as number[];
    },
    liveIds() {
      return q.liveIds.all() as number[];
    },
    maybeMerge() {
      const sealed = q.sealed.all() as { id: number; docs: number }[];
      if (sealed.length <= MAX_SEALED) return false;
      mergeSegments(
        db,
        t,
        sealed.slice(0, sealed.length - MAX_SEALED + 2).map((s) => s.id),
      );
      return true;
    },
    mergeAll() {
      const all = db.prepare(`SELECT id FROM ${t}_segments`).pluck().all() as number[];
      if (all.length > 0) mergeSegments(db, t, all);
    },
    clear() {
      db.exec(`DELETE FROM ${t}_docs; DELETE FROM ${t}_postings; DELETE FROM ${t}_segments;
        DELETE FROM ${t}_deleted; DELETE FROM ${t}_stats; DELETE FROM ${t}_text;`);
    },
  };
}

/** Rows a merge reads at a time (a term's rows are never split between two reads). */
const MERGE_CHUNK = 4096;

/**
 * Rewrites `segmentIds` as one sealed segment without the tombstoned documents, reading the postings
 * in term order a chunk at a time. A full merge (every segment) also forgets the tombstones.
 */
function mergeSegments(db: Db, t: IndexTables, segmentIds: number[]): void {
  const drop = new Set(db.prepare(`SELECT id FROM ${t}_deleted`).pluck().all() as number[]);
  const marks = segmentIds.map(() => '?').join(',');
  const read = db.prepare(
    `SELECT term, n, data FROM ${t}_postings WHERE term > ? AND segment IN (${marks}) ORDER BY term LIMIT ?`,
  );
  const put = db.prepare(`INSERT INTO ${t}_postings (term, segment, n, data) VALUES (?, ?, ?, ?)`);
  const docs = db
    .prepare(`SELECT COALESCE(SUM(docs), 0) FROM ${t}_segments WHERE id IN (${marks})`)
    .pluck()
    .get(...segmentIds) as number;
  const target = Number(db.prepare(`INSERT INTO ${t}_segments (docs, sealed) VALUES (?, 1)`).run(docs).lastInsertRowid);
  let after = '';
  for (;;) {
    const rows = read.all(after, ...segmentIds, MERGE_CHUNK) as ({ term: string } & PostingList)[];
    if (rows.length === 0) break;
    const full = rows.length === MERGE_CHUNK;
    const lastTerm = rows.at(-1)!.term;
    // a full chunk may end inside a term's rows: leave that term to the next read
    const take = full && rows[0]!.term !== lastTerm ? rows.filter((r) => r.term !== lastTerm) : rows;
    let i = 0;
    while (i < take.length) {
      const term = take[i]!.term;
      const lists: PostingList[] = [];
      for (; i < take.length && take[i]!.term === term; i++) lists.push(take[i]!);
      const merged = concatPostings(lists, drop);
      if (merged.n > 0) put.run(term, target, merged.n, merged.data);
    }
    after = take.at(-1)!.term;
    if (!full) break;
  }
  db.prepare(`DELETE FROM ${t}_postings WHERE segment IN (${marks})`).run(...segmentIds);
  db.prepare(`DELETE FROM ${t}_segments WHERE id IN (${marks})`).run(...segmentIds);
  const others = db.prepare(`SELECT COUNT(*) FROM ${t}_segments WHERE id != ?`).pluck().get(target) as number;
  if (others === 0) db.exec(`DELETE FROM ${t}_deleted`);
}
