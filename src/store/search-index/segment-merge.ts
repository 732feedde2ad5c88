/**
 * Merging the search index's segments (docs/search.md, "Segments and merges"). A merge claims sealed
 * segments under a lease, writes their postings, tombstoned documents dropped, into a new segment in
 * short transactions (so the process that writes documents never waits long for the lock, and readers,
 * under WAL, never wait), then publishes it in one small transaction: the new segment becomes readable
 * and the old ones retired in the same commit, so a query sees one or the other. Retired rows are
 * deleted afterwards, a range at a time. A merger that dies leaves its claims to expire: the next merge
 * retires what it built and hands its sources back.
 *
 * Run by the merge worker (`segment-merger.ts`, a thread with its own connection), and inline by
 * `mergeAll` (after a bulk load, in tests and benches).
 */
import { writeTransaction, type Db } from '../sqlite/database.js';
import { blockEntries, BlockWriter, type BlockEntry, type BlockRow } from './postings.blocks.js';
import { concatPostings } from './postings.codec.js';
import type { PositionedList } from './search-index.types.js';

/** The table family an index lives in: `search` (web pages and documents) or `code` (code chunks). */
export type IndexTables = 'search' | 'code';

/** Segment states (the `state` column). */
export const SEGMENT = { open: 0, sealed: 1, building: 2, retired: 3, merging: 4 } as const;

/**
 * Segments of one size class (a power of this factor in documents) are merged this many at a time, the
 * smallest class first: each document is rewritten about log_F(documents / batch) times, and at most
 * F − 1 segments of each class are readable.
 */
export const MERGE_FACTOR = 8;

/** The key of `<index>_stats` counting the merges published since the index was made (or rebuilt). */
export const MERGES_STAT = 'merges';

/** Free pages returned to the file system per step. */
const VACUUM_PAGES = 2048;

export interface MergeOptions {
  /** How long a merge's claim holds without being renewed (default 60 s). */
  leaseMs?: number;
  /** Blocks read from a source segment, and written, per transaction (default 256). */
  chunkRows?: number;
  /** The clock (tests move it). */
  now?: () => number;
}

interface Segment {
  id: number;
  docs: number;
  firstDoc: number;
}

/** Merges in one table family of `db`: each call does one unit of background work. */
export interface SegmentMerger {
  /**
   * Does the next piece of work: recovers expired claims, deletes retired blocks, or merges the
   * smallest size class of sealed segments that has `MERGE_FACTOR` of them. False when there was nothing to do.
   */
  step(): boolean;
  /** Seals the open segment and merges every segment into one, tombstones dropped (synchronous). */
  mergeAll(): void;
}

/** The size class of a segment of `docs` documents: 0 below `MERGE_FACTOR`, 1 below its square, … */
const sizeClass = (docs: number) => Math.floor(Math.log(Math.max(docs, 1)) / Math.log(MERGE_FACTOR));

/**
 * The oldest `MERGE_FACTOR` segments (by first document) of the smallest size class that has that
 * many, or null. Segments written in order and merged this way stay ranges of ids that follow one
 * another, so a merge joins their lists byte-wise and readers never sort (a merge of segments taken
 * by size alone interleaved their ranges and had to decode and sort every list).
 */
export function dueClass<S extends { docs: number; firstDoc: number }>(sealed: readonly S[]): S[] | null {
  const classes = new Map<number, S[]>();
  for (const s of sealed) {
    const c = sizeClass(s.docs);
    let members = classes.get(c);
    if (!members) classes.set(c, (members = []));
    members.push(s);
  }
  for (const c of [...classes.keys()].sort((a, b) => a - b)) {
    const members = classes.get(c)!;
    if (members.length >= MERGE_FACTOR)
      return [...members].sort((a, b) => a.firstDoc - b.firstDoc).slice(0, MERGE_FACTOR);
  }
  return null;
}

export function createSegmentMerger(db: Db, t: IndexTables, options: MergeOptions = {}): SegmentMerger {
  const leaseMs = options.leaseMs ?? 60_000;
  const chunk = options.chunkRows ?? 256;
  const now = options.now ?? Date.now;
  const q = {
    expired: db.prepare(`SELECT id, state FROM ${t}_segments WHERE state IN (2, 4) AND lease_ms < ?`),
    setState: db.prepare(`UPDATE ${t}_segments SET state = ?, lease_ms = NULL WHERE id = ?`),
    retired: db.prepare(`SELECT id FROM ${t}_segments WHERE state = 3 ORDER BY id LIMIT 1`).pluck(),
    deleteSome: db.prepare(
      `DELETE FROM ${t}_blocks WHERE rowid IN (SELECT rowid FROM ${t}_blocks WHERE segment = ? LIMIT ?)`,
    ),
    dropSegment: db.prepare(`DELETE FROM ${t}_segments WHERE id = ?`),
    sealed: db.prepare(`SELECT id, docs, first_doc AS firstDoc FROM ${t}_segments WHERE state = 1 ORDER BY docs, id`),
    live: db.prepare(`SELECT id, docs, first_doc AS firstDoc FROM ${t}_segments WHERE state IN (0, 1) ORDER BY id`),
    claim: db.prepare(`UPDATE ${t}_segments SET state = 4, lease_ms = ? WHERE id = ? AND state IN (0, 1)`),
    target: db.prepare(`INSERT INTO ${t}_segments (docs, state, lease_ms, first_doc) VALUES (?, 2, ?, ?)`),
    renew: db.prepare(`UPDATE ${t}_segments SET lease_ms = ? WHERE id = ? AND state IN (2, 4)`),
    read: db.prepare(
      `SELECT last, terms, data, pos FROM ${t}_blocks WHERE segment = ? AND last > ? ORDER BY last LIMIT ?`,
    ),
    put: db.prepare(`INSERT INTO ${t}_blocks (segment, last, terms, data, pos) VALUES (?, ?, ?, ?, ?)`),
    deleted: db.prepare(`SELECT id FROM ${t}_deleted`).pluck(),
    others: db.prepare(`SELECT COUNT(*) FROM ${t}_segments WHERE state IN (0, 1, 2, 4) AND id != ?`).pluck(),
    clearDeleted: db.prepare(`DELETE FROM ${t}_deleted`),
    // merges published, kept with the index (its metrics read it: trawl_index_merges_total)
    countMerge: db.prepare(`INSERT INTO ${t}_stats (key, value) VALUES ('${MERGES_STAT}', 1)
      ON CONFLICT (key) DO UPDATE SET value = value + 1`),
    freePages: db.prepare('PRAGMA freelist_count').pluck(),
    autoVacuum: db.prepare('PRAGMA auto_vacuum').pluck(),
  };
  const incremental = (q.autoVacuum.get() as number) === 2;

  /** Gives free pages back to the file system, a bounded number per step (a database made with auto_vacuum). */
  const vacuum = (): boolean => {
    if (!incremental || (q.freePages.get() as number) === 0) return false;
    db.pragma(`incremental_vacuum(${VACUUM_PAGES})`);
    return true;
  };

  /** Claims expired: what a dead merger built is retired, what it was merging is sealed again. */
  const recoverNow = writeTransaction(db, (): boolean => {
    const rows = q.expired.all(now()) as { id: number; state: number }[];
    for (const r of rows) q.setState.run(r.state === SEGMENT.building ? SEGMENT.retired : SEGMENT.sealed, r.id);
    return rows.length > 0;
  });

  /** Deletes up to `chunk` blocks of one retired segment (the segment itself once empty). */
  const deleteRetiredNow = writeTransaction(db, (): boolean => {
    const id = q.retired.get() as number | undefined;
    if (id === undefined) return false;
    if (q.deleteSome.run(id, chunk).changes < chunk) q.dropSegment.run(id);
    return true;
  });

  // a step looks first and takes the write lock only with work to do: the writer's transaction would
  // otherwise meet the lock at every poke, and SQLite's busy handler sleeps milliseconds at a time
  const recover = () => q.expired.all(now()).length > 0 && recoverNow();
  const deleteRetired = () => q.retired.get() !== undefined && deleteRetiredNow();

  const claim = writeTransaction(db, (ids: number[], docs: number, firstDoc: number): number | null => {
    const lease = now() + leaseMs;
    for (const id of ids) if (q.claim.run(lease, id).changes === 0) return null;
    return Number(q.target.run(docs, lease, firstDoc).lastInsertRowid);
  });

  const write = writeTransaction(db, (target: number, sources: number[], blocks: BlockRow[]) => {
    const lease = now() + leaseMs;
    q.renew.run(lease, target);
    for (const id of sources) q.renew.run(lease, id);
    for (const b of blocks) q.put.run(target, b.last, b.terms, b.data, b.pos);
  });

  const publish = writeTransaction(db, (target: number, sources: number[]) => {
    q.setState.run(SEGMENT.sealed, target);
    for (const id of sources) q.setState.run(SEGMENT.retired, id);
    if ((q.others.get(target) as number) === 0) q.clearDeleted.run();
    q.countMerge.run();
  });

  /** Merges `sources` (claimed) into `target`: a k-way merge of their lists in term order. */
  const mergeInto = (target: number, sources: number[]) => {
    const drop = new Set(q.deleted.all() as number[]);
    // a cursor reads a segment `chunk` blocks at a time and walks their lists
    const cursors = sources.map((segment) => ({
      segment,
      blocks: [] as BlockRow[],
      block: 0,
      entries: [] as BlockEntry[],
      at: 0,
      after: Buffer.alloc(0) as Buffer,
      done: false,
    }));
    const head = (c: (typeof cursors)[number]): BlockEntry | undefined => {
      while (c.at >= c.entries.length) {
        if (c.block >= c.blocks.length) {
          if (c.done) return undefined;
          c.blocks = q.read.all(c.segment, c.after, chunk) as BlockRow[];
          c.block = 0;
          if (c.blocks.length < chunk) c.done = true;
          if (c.blocks.length === 0) return undefined;
          c.after = c.blocks.at(-1)!.last;
        }
        c.entries = blockEntries(c.blocks[c.block++]!);
        c.at = 0;
      }
      return c.entries[c.at];
    };
    const out = new BlockWriter();
    let pending: BlockRow[] = [];
    const lists: PositionedList[] = [];
    for (;;) {
      let term: string | undefined;
      for (const c of cursors) {
        const h = head(c);
        if (h && (term === undefined || h.term < term)) term = h.term;
      }
      if (term === undefined) break;
      lists.length = 0;
      for (const c of cursors) {
        const h = head(c);
        if (h && h.term === term) {
          lists.push(h);
          c.at++;
        }
      }
      const merged = concatPostings(lists, drop);
      if (merged.n > 0) pending.push(...out.add(term, merged));
      if (pending.length >= chunk) {
        write(target, sources, pending);
        pending = [];
      }
    }
    const last = out.finish();
    if (last) pending.push(last);
    write(target, sources, pending);
  };

  /** Merges segments, read in the order of their first documents (so that ranges join without sorting). */
  const merge = (segments: Segment[]): boolean => {
    const sorted = [...segments].sort((a, b) => a.firstDoc - b.firstDoc || a.id - b.id);
    const ids = sorted.map((s) => s.id);
    const docs = sorted.reduce((a, s) => a + s.docs, 0);
    const target = claim(ids, docs, sorted[0]!.firstDoc);
    if (target === null) return false;
    try {
      mergeInto(target, ids);
    } catch (err) {
      // hand the sources back; what was built is deleted as retired
      writeTransaction(db, () => {
        q.setState.run(SEGMENT.retired, target);
        for (const id of ids) q.setState.run(SEGMENT.sealed, id);
      })();
      throw err;
    }
    publish(target, ids);
    return true;
  };

  return {
    step() {
      if (recover() || deleteRetired() || vacuum()) return true;
      const due = dueClass(q.sealed.all() as Segment[]);
      return due ? merge(due) : false;
    },
    mergeAll() {
      const live = q.live.all() as Segment[];
      if (live.length > 1 || (live.length === 1 && q.deleted.all().length > 0)) merge(live);
      else if (live.length === 1) q.setState.run(SEGMENT.sealed, live[0]!.id);
      while (deleteRetired() || vacuum());
    },
  };
}
