/**
 * The search index's storage: documents, postings in segments (small writes go to an open segment,
 * large ones become a segment of their own; sealed segments are merged when they pile up), tombstones
 * and BM25 statistics. Postings are compressed (`postings.codec.ts`). Everything is written in the
 * caller's transaction; see docs/search.md.
 */
import type { Db } from './database.js';
import { concatPostings, encodePostings, type RawPosting } from './postings.codec.js';
import { createSegmentMerger, MAX_SEALED, SEGMENT, type IndexTables } from './segment-merge.js';
import {
  FIELD_COUNT,
  FIELDS,
  type DocRow,
  type IndexedDoc,
  type PositionedList,
  type PostingList,
} from './search-index.types.js';

export {
  concatPostings,
  FIELD_COUNT,
  FIELDS,
  MAX_SEALED,
  type DocRow,
  type IndexedDoc,
  type PositionedList,
  type PostingList,
};

/** Documents an open segment takes before it is sealed. */
const SEGMENT_DOCS = 2000;
/** A write of at least this many documents becomes a sealed segment of its own. */
const OWN_SEGMENT_DOCS = 200;

/** Both table families have the same tables (migrations 4, 6 and 14), so one implementation serves both. */
export type { IndexTables };

/** Title and text of indexed documents, from the store they were indexed from (phrases, feedback). */
export interface SourceText {
  title: string;
  text: string;
}

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
  /** Every segment's postings of `term`, in segment order. */
  postings(term: string): PostingList[];
  /** Every segment's positions of `term`, in the same order as `postings` (null for a list without). */
  positions(term: string): (Buffer | null)[];
  /** Documents listing `term` (replaced ones included until a merge); reads no posting data. */
  docFrequency(term: string): number;
  /** Live documents and field length totals. */
  stats(): { docs: number; lengths: number[] };
  /** Document rows with an id above `id`, in id order (the in-memory table loads these), one at a time. */
  docsSince(id: number): IterableIterator<DocRow>;
  maxDocId(): number;
  deletedIds(): number[];
  liveIds(): number[];
  /** Segments and their sizes, a change of which drops cached postings. */
  segmentsVersion(): string;
  /** The title and text of documents by id, from the documents store (the code index has none). */
  texts(ids: number[]): Map<number, SourceText>;
  /**
   * Merges sealed segments while more than `MAX_SEALED` are readable, here and now (the server merges
   * in a worker thread instead, `segment-merger.ts`). Not inside a transaction: a merge commits in steps.
   */
  maybeMerge(): boolean;
  /** Merges every segment into one, dropping all tombstones (after a bulk import, or on demand). Not inside a transaction. */
  mergeAll(): void;
  /** Empties the index (a rebuild starts from here). Run inside a transaction. */
  clear(): void;
  /** Takes the mark a migration leaves when it empties the index (true once: one process rebuilds). */
  claimRebuild(): boolean;
  /** Puts the mark back (a rebuild that failed). */
  markRebuild(): void;
}

/** The index repository over `db`'s `<tables>_*` tables. */
export function createSearchIndexRepo(db: Db, tables: IndexTables = 'search'): SearchIndexRepo {
  const t = tables;
  const q = {
    docByUrl: db.prepare(`SELECT id, len_title, len_headings, len_body, len_url FROM ${t}_docs WHERE url = ?`).raw(),
    hashByUrl: db.prepare(`SELECT content_hash FROM ${t}_docs WHERE url = ?`).pluck(),
    insertDoc: db.prepare(`INSERT INTO ${t}_docs (url, host, len_title, len_headings, len_body, len_url,
      published_at, crawled_at, categories, unsafe, country, entities, content_hash) VALUES (@url, @host,
      @len0, @len1, @len2, @len3,
      @publishedAt, @crawledAt, @categories, @unsafe, @country, @entities, @contentHash)`),
    deleteDoc: db.prepare(`DELETE FROM ${t}_docs WHERE id = ?`),
    tombstone: db.prepare(`INSERT OR IGNORE INTO ${t}_deleted (id) VALUES (?)`),
    openSegment: db.prepare(`SELECT id, docs FROM ${t}_segments WHERE state = 0 ORDER BY id LIMIT 1`),
    newSegment: db.prepare(`INSERT INTO ${t}_segments (docs, state, first_doc) VALUES (?, ?, ?)`),
    growSegment: db.prepare(`UPDATE ${t}_segments SET docs = docs + ?, state = ? WHERE id = ? AND state = 0`),
    segments: db
      .prepare(`SELECT group_concat(id || ':' || docs, ',') FROM ${t}_segments WHERE state IN (0, 1, 4)`)
      .pluck(),
    posting: db.prepare(`SELECT n, data, pos FROM ${t}_postings WHERE segment = ? AND term = ?`),
    // readable segments (open, sealed, and sealed ones being merged), oldest first: a merge publishes
    // its target and retires its sources in one commit
    postings: db.prepare(`SELECT p.n, p.data FROM ${t}_segments s CROSS JOIN ${t}_postings p
      ON p.segment = s.id AND p.term = ? WHERE s.state IN (0, 1, 4) ORDER BY s.first_doc, s.id`),
    positions: db
      .prepare(
        `SELECT p.pos FROM ${t}_segments s CROSS JOIN ${t}_postings p
        ON p.segment = s.id AND p.term = ? WHERE s.state IN (0, 1, 4) ORDER BY s.first_doc, s.id`,
      )
      .pluck(),
    df: db
      .prepare(
        `SELECT COALESCE(SUM(p.n), 0) FROM ${t}_segments s CROSS JOIN ${t}_postings p
        ON p.segment = s.id AND p.term = ? WHERE s.state IN (0, 1, 4)`,
      )
      .pluck(),
    putPosting: db.prepare(`INSERT OR REPLACE INTO ${t}_postings (segment, term, n, data, pos) VALUES (?, ?, ?, ?, ?)`),
    stat: db.prepare(`SELECT value FROM ${t}_stats WHERE key = ?`).pluck(),
    addStat: db.prepare(`INSERT INTO ${t}_stats (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = value + excluded.value`),
    dropStat: db.prepare(`DELETE FROM ${t}_stats WHERE key = ?`),
    docsSince: db
      .prepare(
        `SELECT id, host, published_at, crawled_at, categories, unsafe, country, len_title, len_headings,
        len_body, len_url FROM ${t}_docs WHERE id > ? ORDER BY id`,
      )
      .raw(),
    maxDocId: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = '${t}_docs'`).pluck(),
    deleted: db.prepare(`SELECT id FROM ${t}_deleted`).pluck(),
    liveIds: db.prepare(`SELECT id FROM ${t}_docs ORDER BY id`).pluck(),
    texts:
      t === 'search'
        ? db.prepare(`SELECT s.id, d.title, d.text FROM search_docs s JOIN documents d ON d.url = s.url
            WHERE s.id IN (SELECT value FROM json_each(?))`)
        : null,
  };

  const merger = createSegmentMerger(db, t);

  const addStats = (totals: number[], docs: number) => {
    q.addStat.run('docs', docs);
    totals.forEach((len, i) => q.addStat.run(`len:${FIELDS[i]}`, len));
  };

  /** Removes the document at `url` (its postings wait in their segment as a tombstone); true if there was one. */
  const removeOne = (url: string): boolean => {
    const row = q.docByUrl.get(url) as number[] | undefined;
    if (!row) return false;
    const [id, ...lengths] = row as [number, ...number[]];
    q.deleteDoc.run(id);
    q.tombstone.run(id);
    addStats(
      lengths.map((len) => -len),
      -1,
    );
    return true;
  };

  /** Writes the batch's postings: a segment of their own for a large batch, else into the open segment. */
  const writePostings = (batch: Map<string, RawPosting[]>, docs: number, firstId: number) => {
    if (docs >= OWN_SEGMENT_DOCS) {
      const segment = Number(q.newSegment.run(docs, SEGMENT.sealed, firstId).lastInsertRowid);
      // in term order: the rows append to the table's end
      for (const term of [...batch.keys()].sort()) {
        const postings = batch.get(term)!;
        const list = encodePostings(postings);
        q.putPosting.run(segment, term, list.n, list.data, list.pos);
      }
      return;
    }
    const open = (q.openSegment.get() as { id: number; docs: number } | undefined) ?? {
      id: Number(q.newSegment.run(0, SEGMENT.open, firstId).lastInsertRowid),
      docs: 0,
    };
    for (const [term, postings] of batch) {
      const old = q.posting.get(open.id, term) as PositionedList | undefined;
      const added = encodePostings(postings);
      const list = old ? concatPostings([old, added]) : added;
      q.putPosting.run(open.id, term, list.n, list.data, list.pos);
    }
    q.growSegment.run(docs, open.docs + docs >= SEGMENT_DOCS ? SEGMENT.sealed : SEGMENT.open, open.id);
  };

  return {
    hashOf(url) {
      return q.hashByUrl.get(url) as string | undefined;
    },
    write(docs) {
      const batch = new Map<string, RawPosting[]>();
      const totals = new Array<number>(FIELD_COUNT).fill(0);
      const ids = docs.map((doc) => {
        removeOne(doc.url);
        const id = Number(
          q.insertDoc.run({
            ...doc,
            len0: doc.lengths[0],
            len1: doc.lengths[1],
            len2: doc.lengths[2],
            len3: doc.lengths[3],
            unsafe: doc.unsafe ? 1 : 0,
          }).lastInsertRowid,
        );
        doc.lengths.forEach((len, i) => (totals[i] = totals[i]! + len));
        doc.terms.forEach((term, i) => {
          let list = batch.get(term);
          if (!list) batch.set(term, (list = []));
          const from = i > 0 ? doc.positionEnds[i - 1]! : 0;
          list.push({
            id,
            freqs: doc.freqs.subarray(i * FIELD_COUNT, (i + 1) * FIELD_COUNT),
            pos: doc.positions.subarray(from, doc.positionEnds[i]),
          });
        });
        return id;
      });
      if (docs.length > 0) {
        addStats(totals, docs.length);
        writePostings(batch, docs.length, ids[0]!);
      }
      return ids;
    },
    remove(urls) {
      return urls.filter((url) => removeOne(url)).length;
    },
    postings(term) {
      return q.postings.all(term) as PostingList[];
    },
    positions(term) {
      return q.positions.all(term) as (Buffer | null)[];
    },
    docFrequency(term) {
      return q.df.get(term) as number;
    },
    stats() {
      const docs = (q.stat.get('docs') as number | undefined) ?? 0;
      return { docs, lengths: FIELDS.map((f) => (q.stat.get(`len:${f}`) as number | undefined) ?? 0) };
    },
    docsSince(id) {
      return q.docsSince.iterate(id) as IterableIterator<DocRow>;
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
    segmentsVersion() {
      return (q.segments.get() as string | null) ?? '';
    },
    texts(ids) {
      if (!q.texts || ids.length === 0) return new Map();
      const rows = q.texts.all(JSON.stringify(ids)) as ({ id: number } & SourceText)[];
      return new Map(rows.map((r) => [r.id, { title: r.title, text: r.text }]));
    },
    maybeMerge() {
      let merged = false;
      while (merger.step()) merged = true;
      return merged;
    },
    mergeAll() {
      merger.mergeAll();
    },
    clear() {
      db.exec(`DELETE FROM ${t}_docs; DELETE FROM ${t}_postings; DELETE FROM ${t}_segments;
        DELETE FROM ${t}_deleted; DELETE FROM ${t}_stats;`);
    },
    claimRebuild() {
      return q.dropStat.run('rebuild').changes > 0;
    },
    markRebuild() {
      q.addStat.run('rebuild', 0);
    },
  };
}
