/**
 * The search index's storage: documents, postings in segments (small writes go to an open segment,
 * large ones become a segment of their own; sealed segments of one size are merged when they pile up),
 * tombstones and BM25 statistics. A segment's lists are stored many terms to a row (`postings.blocks.ts`),
 * each compressed (`postings.codec.ts`). Everything is written in the caller's transaction; see
 * docs/search.md.
 */
import type { Db } from '../sqlite/database.js';
import { blockEntries, BlockWriter, findInBlock, termKey, type BlockEntry, type BlockRow } from './postings.blocks.js';
import { concatPostings, encodeFlat } from './postings.codec.js';
import { createSegmentMerger, MERGE_FACTOR, SEGMENT, type IndexTables } from './segment-merge.js';
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
  MERGE_FACTOR,
  type DocRow,
  type IndexedDoc,
  type PositionedList,
  type PostingList,
};

/**
 * Writes of fewer documents than this (a page fetched, a file re-indexed) go to the open segment, which
 * each rewrites (it holds fewer than this many) and which is sealed once it holds this many; larger
 * writes are a segment of their own.
 */
const OPEN_DOCS = 64;

/**
 * Two runs of lists in term order as one: a term in both gets the lists joined (`a`'s documents are
 * older, so its ids come first).
 */
function* joinSorted(a: BlockEntry[], b: Iterable<[string, PositionedList]>): Generator<[string, PositionedList]> {
  let i = 0;
  for (const [term, list] of b) {
    while (i < a.length && a[i]!.term < term) {
      yield [a[i]!.term, a[i]!];
      i++;
    }
    if (i < a.length && a[i]!.term === term) yield [term, concatPostings([a[i++]!, list])];
    else yield [term, list];
  }
  for (; i < a.length; i++) yield [a[i]!.term, a[i]!];
}

/** Both table families have the same tables (migrations 4, 6 and 14), so one implementation serves both. */
export type { IndexTables };

/** A segment readers read: its id and documents (an open segment grows: its lists change with it). */
export interface ReadableSegment {
  id: number;
  docs: number;
}

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
  /** The content hashes indexed for `urls` (those indexed): an unchanged document need not be re-indexed. */
  hashesOf(urls: string[]): Map<string, string>;
  /** Writes documents (replacing any at the same URL). Run inside a transaction. Returns their ids. */
  write(docs: IndexedDoc[]): number[];
  /** Removes documents by URL. Run inside a transaction. Returns how many there were. */
  remove(urls: string[]): number;
  /** The readable segments, in the order their lists are read (by first document), with their sizes. */
  readableSegments(): ReadableSegment[];
  /** One segment's list of `term` (null when the segment lacks it); `pos` only `withPositions`. */
  postingsIn(segment: number, term: string, withPositions?: boolean): PositionedList | null;
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
   * Merges sealed segments while `MERGE_FACTOR` of one size are readable, here and now (the server merges
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
  const blocksOf = (columns: string) =>
    db
      .prepare(
        `SELECT ${columns} FROM ${t}_segments s CROSS JOIN ${t}_blocks b
        ON b.rowid = (SELECT rowid FROM ${t}_blocks WHERE segment = s.id AND last >= ? ORDER BY last LIMIT 1)
        WHERE s.state IN (0, 1, 4) ORDER BY s.first_doc, s.id`,
      )
      .raw();
  const q = {
    docByUrl: db.prepare(`SELECT id, len_title, len_headings, len_body, len_url FROM ${t}_docs WHERE url = ?`).raw(),
    urlsPresent: db.prepare(`SELECT url FROM ${t}_docs WHERE url IN (SELECT value FROM json_each(?))`).pluck(),
    hashesByUrl: db
      .prepare(`SELECT url, content_hash FROM ${t}_docs WHERE url IN (SELECT value FROM json_each(?))`)
      .raw(),
    insertDoc: db.prepare(`INSERT INTO ${t}_docs (url, host, len_title, len_headings, len_body, len_url,
      published_at, crawled_at, categories, unsafe, country, entities, content_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    deleteDoc: db.prepare(`DELETE FROM ${t}_docs WHERE id = ?`),
    tombstone: db.prepare(`INSERT OR IGNORE INTO ${t}_deleted (id) VALUES (?)`),
    newSegment: db.prepare(`INSERT INTO ${t}_segments (docs, state, first_doc) VALUES (?, ?, ?)`),
    openSegment: db.prepare(`SELECT id, docs FROM ${t}_segments WHERE state = ${SEGMENT.open} ORDER BY id LIMIT 1`),
    growSegment: db.prepare(`UPDATE ${t}_segments SET docs = docs + ?, state = ? WHERE id = ?`),
    segmentBlocks: db.prepare(`SELECT terms, data, pos FROM ${t}_blocks WHERE segment = ? ORDER BY last`),
    deleteBlocks: db.prepare(`DELETE FROM ${t}_blocks WHERE segment = ?`),
    segments: db
      .prepare(`SELECT group_concat(id || ':' || docs, ',') FROM ${t}_segments WHERE state IN (0, 1, 4)`)
      .pluck(),
    // per readable segment (open, sealed, and sealed ones being merged; oldest first: a merge publishes
    // its target and retires its sources in one commit), the block that would hold the term
    blocks: blocksOf('b.terms, b.data'),
    readable: db.prepare(`SELECT id, docs FROM ${t}_segments WHERE state IN (0, 1, 4) ORDER BY first_doc, id`),
    blockIn: db
      .prepare(`SELECT terms, data FROM ${t}_blocks WHERE segment = ? AND last >= ? ORDER BY last LIMIT 1`)
      .raw(),
    blockWithPositionsIn: db
      .prepare(`SELECT terms, data, pos FROM ${t}_blocks WHERE segment = ? AND last >= ? ORDER BY last LIMIT 1`)
      .raw(),
    putBlock: db.prepare(`INSERT INTO ${t}_blocks (segment, last, terms, data, pos) VALUES (?, ?, ?, ?, ?)`),
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

  /**
   * Writes the batch's postings as a segment of their own, in blocks, in term order. The postings are
   * laid out flat, grouped by term (a count per term, then a slot per posting), so that a batch of
   * thousands of documents allocates a handful of arrays, not an object per posting.
   */
  const writePostings = (docs: IndexedDoc[], ids: number[]) => {
    const slotOf = new Map<string, number>(); // term → its index in `terms`
    const terms: string[] = [];
    let counts: number[] = [];
    let total = 0;
    const termIndex: Int32Array[] = docs.map((doc) => {
      const out = new Int32Array(doc.terms.length);
      doc.terms.forEach((term, i) => {
        let t = slotOf.get(term);
        if (t === undefined) {
          slotOf.set(term, (t = terms.length));
          terms.push(term);
          counts.push(0);
        }
        counts[t]!++;
        out[i] = t;
      });
      total += doc.terms.length;
      return out;
    });
    // each term's first slot, terms in sorted order: the segment's lists are written in that order
    const order = terms.map((_, t) => t).sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1));
    const next = new Int32Array(terms.length);
    let at = 0;
    for (const t of order) {
      next[t] = at;
      at += counts[t]!;
    }
    counts = [];
    const flat = {
      ids: new Uint32Array(total),
      freqs: new Uint8Array(total * FIELD_COUNT),
      posData: docs.map((doc) => doc.positions),
      posSource: new Int32Array(total),
      posFrom: new Int32Array(total),
      posTo: new Int32Array(total),
    };
    docs.forEach((doc, d) => {
      const index = termIndex[d]!;
      for (let i = 0; i < index.length; i++) {
        const slot = next[index[i]!]!++;
        flat.ids[slot] = ids[d]!;
        for (let f = 0; f < FIELD_COUNT; f++) flat.freqs[slot * FIELD_COUNT + f] = doc.freqs[i * FIELD_COUNT + f]!;
        flat.posSource[slot] = d;
        flat.posFrom[slot] = i > 0 ? doc.positionEnds[i - 1]! : 0;
        flat.posTo[slot] = doc.positionEnds[i]!;
      }
    });
    const sorted = function* (): Generator<[string, PositionedList]> {
      let from = 0;
      for (const t of order) {
        const to = next[t]!; // after the fill: the end of the term's slots
        yield [terms[t]!, encodeFlat(flat, from, to)];
        from = to;
      }
    };
    if (docs.length >= OPEN_DOCS) {
      const segment = Number(q.newSegment.run(docs.length, SEGMENT.sealed, ids[0]!).lastInsertRowid);
      writeBlocks(segment, sorted());
      return;
    }
    // a small write (a page fetched): into the open segment, which is rewritten with it (it is small)
    const open = q.openSegment.get() as { id: number; docs: number } | undefined;
    if (!open) {
      writeBlocks(Number(q.newSegment.run(docs.length, SEGMENT.open, ids[0]!).lastInsertRowid), sorted());
      return;
    }
    const old = (q.segmentBlocks.all(open.id) as BlockRow[]).flatMap((b) => blockEntries(b));
    q.deleteBlocks.run(open.id);
    writeBlocks(open.id, joinSorted(old, sorted()));
    q.growSegment.run(docs.length, open.docs + docs.length >= OPEN_DOCS ? SEGMENT.sealed : SEGMENT.open, open.id);
  };

  /** Writes lists, in term order, as the blocks of `segment`. */
  const writeBlocks = (segment: number, lists: Iterable<[string, PositionedList]>) => {
    const blocks = new BlockWriter();
    const put = (b: BlockRow) => q.putBlock.run(segment, b.last, b.terms, b.data, b.pos);
    for (const [term, list] of lists) blocks.add(term, list).forEach(put);
    const last = blocks.finish();
    if (last) put(last);
  };

  /** Each readable segment's list of `term` (segments without it left out), in segment order. */
  const lists = (term: string): PositionedList[] => {
    const out: PositionedList[] = [];
    for (const [terms, data] of q.blocks.all(termKey(term)) as [Buffer, Buffer][]) {
      const list = findInBlock({ terms, data }, term);
      if (list) out.push(list);
    }
    return out;
  };

  return {
    hashesOf(urls) {
      if (urls.length === 0) return new Map();
      return new Map(q.hashesByUrl.all(JSON.stringify(urls)) as [string, string][]);
    },
    write(docs) {
      const totals = new Array<number>(FIELD_COUNT).fill(0);
      // the URLs already indexed, in one statement for a batch rather than a look-up per document (a
      // fresh import or source has none); a URL twice in the batch replaces its first
      const present = docs.length > 1 ? new Set(q.urlsPresent.all(JSON.stringify(docs.map((d) => d.url))) as string[]) : null; // prettier-ignore
      const ids = docs.map((doc) => {
        if (!present || present.has(doc.url)) removeOne(doc.url);
        present?.add(doc.url);
        const [len0, len1, len2, len3] = doc.lengths;
        doc.lengths.forEach((len, i) => (totals[i] = totals[i]! + len));
        return Number(
          q.insertDoc.run(
            doc.url,
            doc.host,
            len0,
            len1,
            len2,
            len3,
            doc.publishedAt,
            doc.crawledAt,
            doc.categories,
            doc.unsafe ? 1 : 0,
            doc.country,
            doc.entities,
            doc.contentHash,
          ).lastInsertRowid,
        );
      });
      if (docs.length > 0) {
        addStats(totals, docs.length);
        writePostings(docs, ids);
      }
      return ids;
    },
    remove(urls) {
      return urls.filter((url) => removeOne(url)).length;
    },
    readableSegments() {
      return q.readable.all() as ReadableSegment[];
    },
    postingsIn(segment, term, withPositions = false) {
      const row = (withPositions ? q.blockWithPositionsIn : q.blockIn).get(segment, termKey(term)) as
        [Buffer, Buffer, (Buffer | null)?] | undefined;
      return row ? findInBlock({ terms: row[0], data: row[1], pos: row[2] }, term) : null;
    },
    docFrequency(term) {
      return lists(term).reduce((n, l) => n + l.n, 0);
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
      db.exec(`DELETE FROM ${t}_docs; DELETE FROM ${t}_blocks; DELETE FROM ${t}_segments;
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
