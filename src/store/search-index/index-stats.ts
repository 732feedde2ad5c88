/**
 * What the search and code indexes hold on this machine, read cheaply for the metrics at scrape time:
 * segments by state (a small table), merges published (a row of `<index>_stats`, written by each merge's
 * publish) and the size of the SQLite file they live in (page counts, no scan).
 */
import type { Db } from '../sqlite/database.js';
import { MERGES_STAT, SEGMENT, type IndexTables } from './segment-merge.js';

/** A segment state's name (`open`, `sealed`, `building`, `retired`, `merging`). */
export type SegmentState = keyof typeof SEGMENT;

/** One index: its segments by state and the merges it has published. */
export interface IndexStats {
  index: IndexTables;
  segments: Record<SegmentState, number>;
  merges: number;
}

/** The reader of both indexes' stats and the database file's bytes (pages in use, free pages excluded). */
export function createIndexStats(db: Db): () => { indexes: IndexStats[]; databaseBytes: number } {
  const byState = Object.fromEntries(Object.entries(SEGMENT).map(([name, n]) => [n, name])) as Record<number, SegmentState>; // prettier-ignore
  const tables = (['search', 'code'] as const).map((index) => ({
    index,
    segments: db.prepare(`SELECT state, COUNT(*) AS n FROM ${index}_segments GROUP BY state`),
    merges: db.prepare(`SELECT value FROM ${index}_stats WHERE key = '${MERGES_STAT}'`).pluck(),
  }));
  const pages = db.prepare('SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count())').pluck(); // prettier-ignore
  const pageSize = db.prepare('SELECT page_size FROM pragma_page_size()').pluck();
  return () => ({
    indexes: tables.map((t) => {
      const segments = Object.fromEntries(Object.keys(SEGMENT).map((name) => [name, 0])) as Record<SegmentState, number>; // prettier-ignore
      for (const row of t.segments.all() as { state: number; n: number }[]) {
        const name = byState[row.state];
        if (name) segments[name] = row.n;
      }
      return { index: t.index, segments, merges: Number(t.merges.get() ?? 0) };
    }),
    databaseBytes: Number(pages.get()) * Number(pageSize.get()),
  });
}
