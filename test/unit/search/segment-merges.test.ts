// Segment merges on a real SQLite file: the merge worker (a thread with its own connection) keeps the
// readable segments few without changing any ranking, readers never see a merge half done, deletes
// hold throughout, and a merger that died is rolled back once its lease expires.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSearchIndex, type SearchIndex } from '../../../src/core/search/search-index.js';
import { localWrites } from '../../../src/core/documents/write-path.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import { BlockWriter } from '../../../src/store/search-index/postings.blocks.js';
import { createSegmentMerger, dueClass, MERGE_FACTOR, SEGMENT } from '../../../src/store/search-index/segment-merge.js';
import { startSegmentMerger, type MergeScheduler } from '../../../src/store/search-index/segment-merger.js';
import { storedDoc } from '../../helpers/documents.js';

const NOW = '2026-11-26T10:00:00.000Z';
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda sigma omega'.split(' ');

/** A document of a few words picked by `i` (deterministic), so queries match many documents. */
const docOf = (i: number) =>
  storedDoc(
    `https://d.example/${i}`,
    `Doc ${WORDS[i % WORDS.length]}`,
    Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + k * k) % WORDS.length]).join(' '),
  );

const opened: { db: Db; merges?: MergeScheduler; dir: string }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.merges?.close();
    o.db.close();
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
});

/** Merges left to another process: segments pile up until it runs. */
const elsewhere: MergeScheduler = { poke() {}, idle: async () => {}, close: async () => {} };

function open(worker: boolean | 'elsewhere') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-merges-'));
  const db = openDatabase(dir);
  const merges = worker === 'elsewhere' ? elsewhere : worker ? startSegmentMerger(db.name, { tickMs: 50 }) : undefined;
  const stored = createDocumentsRepo(db);
  const index = createSearchIndex(db, stored, { merges });
  opened.push({ db, merges, dir });
  return { db, index, documents: localWrites(db, stored, index) };
}

const readable = (db: Db) =>
  db.prepare(`SELECT COUNT(*) FROM search_segments WHERE state IN (${SEGMENT.open}, ${SEGMENT.sealed})`).pluck().get() as number; // prettier-ignore

/** Every document matching each of a few queries, as sorted URLs (scores differ by tombstones not yet merged). */
function matches(index: SearchIndex): string[][] {
  return ['alpha beta', 'gamma omega sigma', 'lambda', 'doc kappa'].map((q) => {
    const hits = index.search(q, { limit: 10_000 });
    return [...index.urls(hits.map((h) => h.id)).values()].sort();
  });
}

/** Ranked URLs and scores of a few queries (URLs, not ids: ids are the index's own). */
function rankings(index: SearchIndex): string[][] {
  return ['alpha beta', 'gamma omega sigma', 'lambda', 'doc kappa'].map((q) => {
    const hits = index.search(q, { limit: 20 });
    const urls = index.urls(hits.map((h) => h.id));
    return hits.map((h) => `${urls.get(h.id)} ${h.score.toFixed(9)}`);
  });
}

/** Writes 30 batches of 200 (each a sealed segment of its own), replacing and removing some on the way. */
async function load(target: ReturnType<typeof open>, removals = true) {
  for (let b = 0; b < 30; b++) {
    await target.documents.upsertMany(
      Array.from({ length: 200 }, (_, k) => docOf(b * 200 + k)),
      NOW,
    );
    if (removals && b % 10 === 9)
      target.index.remove([`https://d.example/${b * 200}`, `https://d.example/${b * 200 + 1}`]);
  }
}

describe('segment merges', () => {
  it('the worker keeps readable segments few, and queries match what a fully merged index matches', async () => {
    const withWorker = open(true);
    await load(withWorker);
    await withWorker.index.merged();
    // 30 segments of 200 documents: three merges of eight, the rest below the merge factor
    expect(readable(withWorker.db)).toBe(30 - 3 * (MERGE_FACTOR - 1));
    const merged = open(false);
    await load(merged);
    merged.index.repo.mergeAll();
    merged.index.table.noteWrite();
    expect(readable(merged.db)).toBe(1);
    expect(matches(withWorker.index)).toEqual(matches(merged.index));
    expect(withWorker.index.count()).toBe(30 * 200 - 6);
    expect(matches(withWorker.index).flat()).not.toContain('https://d.example/1800');
    // merged-away segments are deleted, their pages given back
    expect(withWorker.db.prepare('SELECT COUNT(*) FROM search_segments WHERE state = 3').pluck().get()).toBe(0);
  });

  it('readers see the same ranking throughout a merge made of many small steps', async () => {
    const target = open('elsewhere');
    await load(target, false);
    expect(readable(target.db)).toBe(30);
    const before = rankings(target.index);
    // a worker on the same file, one block per step: queries interleave with its commits
    const merges = startSegmentMerger(target.db.name, { chunkRows: 1, tickMs: 10 });
    opened.push({ db: openDatabase(path.dirname(target.db.name)), merges, dir: '' });
    merges.poke();
    let reads = 0;
    const done = merges.idle();
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      expect(rankings(target.index)).toEqual(before);
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(reads).toBeGreaterThan(1);
    expect(readable(target.db)).toBe(30 - 3 * (MERGE_FACTOR - 1));
    expect(rankings(target.index)).toEqual(before);
  });

  it('rolls back a merger that died: what it built is retired, what it claimed is sealed again', async () => {
    const target = open(false);
    await load(target);
    const before = rankings(target.index);
    const { db } = target;
    // a merger claims segments and writes part of a target, then "dies" (its lease is never renewed)
    let clock = 1_000;
    const dying = createSegmentMerger(db, 'search', { now: () => clock, leaseMs: 100 });
    const sealed = db.prepare('SELECT id FROM search_segments WHERE state = 1 ORDER BY id').pluck().all() as number[];
    db.prepare(`UPDATE search_segments SET state = 4, lease_ms = 1100 WHERE id IN (${sealed.slice(0, 3).join(',')})`).run(); // prettier-ignore
    const building = Number(db.prepare('INSERT INTO search_segments (docs, state, lease_ms) VALUES (0, 2, 1100)').run().lastInsertRowid); // prettier-ignore
    const block = new BlockWriter();
    block.add('alpha', { n: 1, data: Buffer.from([1, 4]), pos: null });
    const { last, terms, data } = block.finish()!;
    db.prepare('INSERT INTO search_blocks (segment, last, terms, data) VALUES (?, ?, ?, ?)').run(building, last, terms, data); // prettier-ignore
    target.index.table.noteWrite();
    // meanwhile readers see neither the claimed segments twice nor the half-built one
    expect(rankings(target.index)).not.toEqual([]);
    clock = 1_050;
    dying.step(); // not expired yet: the claims hold
    expect(db.prepare('SELECT COUNT(*) FROM search_segments WHERE state IN (2, 4)').pluck().get()).toBe(4);
    clock = 5_000;
    while (dying.step());
    target.index.table.noteWrite();
    expect(db.prepare('SELECT COUNT(*) FROM search_segments WHERE state IN (2, 3, 4)').pluck().get()).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM search_blocks WHERE segment = ?').pluck().get(building)).toBe(0);
    expect(rankings(target.index)).toEqual(before);
  });

  it('a reader keeps decoded lists per segment, and they never outlive it: open-segment rewrites, merges, a clear', async () => {
    const target = open(false);
    const fresh = () => createSearchIndex(target.db, createDocumentsRepo(target.db)); // a reader with an empty cache
    const check = () => {
      target.index.table.noteWrite();
      expect(rankings(target.index)).toEqual(rankings(fresh()));
    };
    await target.documents.upsertMany([docOf(1), docOf(2)], NOW); // the open segment
    check();
    await target.documents.upsertMany([docOf(3)], NOW); // the same segment, rewritten with one more
    check();
    expect(matches(target.index).flat()).toContain('https://d.example/3');
    // a sealed segment, then the open one rewritten again: its ids now run on both sides of the sealed one's
    await target.documents.upsertMany(
      Array.from({ length: 100 }, (_, k) => docOf(9000 + k)),
      NOW,
    );
    await target.documents.upsertMany([docOf(9500)], NOW);
    check();
    expect(matches(target.index).flat()).toEqual(expect.arrayContaining(['https://d.example/9500', 'https://d.example/9099'])); // prettier-ignore
    await load(target);
    check();
    target.index.repo.mergeAll();
    check();
    target.db.transaction(() => target.index.repo.clear())();
    await target.documents.upsertMany([docOf(7)], NOW); // a new first segment: its id is not reused
    check();
    expect(matches(target.index).flat()).toEqual(expect.arrayContaining(['https://d.example/7']));
    expect(matches(target.index).flat()).not.toContain('https://d.example/3');
  });

  it('scores under the norms of an epoch: kept while the live average lengths move under 1%, taken afresh beyond', async () => {
    const target = open(false);
    const fresh = () => createSearchIndex(target.db, createDocumentsRepo(target.db)); // exact averages
    await load(target, false); // 6,000 documents, bodies of 12 words
    const { table } = target.index;
    table.refresh();
    const epoch = table.epoch;
    const long = (from: number, n: number) =>
      Array.from({ length: n }, (_, k) =>
        storedDoc(`https://long.example/${from + k}`, 'Long', 'mu nu xi omicron pi rho '.repeat(4).trim()),
      );
    await target.documents.upsertMany(long(0, 20), NOW); // bodies of 24 words: the average moves 0.3%
    table.refresh();
    expect(table.epoch).toBe(epoch);
    expect(table.avgLengths[2]).toBe(12);
    // every score within 1% of its value under the exact averages, and not equal to it
    const byUrl = (ranked: string[][]) => new Map(ranked.flatMap((r, q) => r.map((line) => [`${q} ${line.split(' ')[0]}`, Number(line.split(' ')[1])] as const))); // prettier-ignore
    const now = byUrl(rankings(target.index));
    const exact = byUrl(rankings(fresh()));
    const both = [...now.keys()].filter((k) => exact.has(k));
    expect(both.length).toBeGreaterThan(40);
    for (const k of both) expect(Math.abs(now.get(k)! / exact.get(k)! - 1)).toBeLessThan(0.01);
    expect(both.some((k) => now.get(k) !== exact.get(k))).toBe(true);
    await target.documents.upsertMany(long(20, 300), NOW); // now 5%: a new epoch, the exact averages
    table.refresh();
    expect(table.epoch).toBe(epoch + 1);
    expect(rankings(target.index)).toEqual(rankings(fresh()));
  });

  it('merges the oldest segments of the smallest full size class, so merged segments stay ranges that follow one another', () => {
    const seg = (id: number, docs: number, firstDoc: number) => ({ id, docs, firstDoc });
    // a class-3 segment, then ten of class 2 written in order (the smallest ones last), then one of class 0
    const ten = Array.from({ length: 10 }, (_, i) => seg(i + 2, i < 8 ? 500 : 300, 4001 + i * 500));
    const sealed = [seg(1, 4000, 1), ...ten, seg(12, 3, 9001)];
    expect(dueClass([...sealed].reverse())!.map((s) => s.id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(dueClass(sealed.slice(0, 8))).toBeNull();
  });

  it('reads a term through the segments table, one index seek per segment, never scanning the blocks', () => {
    const { db } = open(false);
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT b.terms, b.data FROM search_segments s CROSS JOIN search_blocks b
        ON b.rowid = (SELECT rowid FROM search_blocks WHERE segment = s.id AND last >= ? ORDER BY last LIMIT 1)
        WHERE s.state IN (0, 1, 4) ORDER BY s.first_doc, s.id`,
      )
      .all(Buffer.from('x')) as { detail: string }[];
    const steps = plan.map((r) => r.detail);
    expect(steps).toContain('SEARCH b USING INTEGER PRIMARY KEY (rowid=?)');
    expect(steps).toContain('SEARCH search_blocks USING COVERING INDEX search_blocks_key (segment=? AND last>?)');
    expect(steps.join('\n')).not.toMatch(/SCAN (b|search_blocks)/);
  });
});
