/**
 * The search index's per-document facts held in memory, indexed by document id: field lengths for
 * BM25, and host, dates, categories, safety and country for the filters. Refreshed incrementally when
 * this process writes, and when another process (a CLI crawl, an import) has committed to the database.
 *
 * BM25's length norms divide by the average field lengths. The averages the norms use are those of an
 * epoch, taken afresh only when the live averages have moved more than `NORM_DRIFT` from them: a write of
 * a few documents into a large index leaves every existing document's norm, and so every scored posting
 * list cached (ranking/postings-cache.ts), as it was. A score moves by less than the drift (a norm 1 − b + b·l/avg
 * moves by at most the relative change of avg), and a small index, where each write moves the averages
 * more, starts a new epoch at nearly every write, so it is scored with exact averages.
 */
import type { Db } from '../../store/sqlite/database.js';
import { FIELD_COUNT, type SearchIndexRepo } from '../../store/search-index/search-index.repo.js';

/** The facts of one document the filters read. */
export interface DocFacts {
  host: string;
  publishedAt: number | null;
  crawledAt: number;
  categories: number;
  unsafe: boolean;
  country: string | null;
}

export interface DocTable {
  /** Brings the table up to date with the database (cheap when nothing changed). */
  refresh(): void;
  /** Live documents. */
  readonly count: number;
  /** Highest document id loaded (accumulators size to it). */
  readonly maxId: number;
  /** Average length of each field: the norms' (this epoch's), within `NORM_DRIFT` of the live averages. */
  readonly avgLengths: readonly number[];
  /** Bumped when the norms' averages are taken afresh, which changes every document's norm. */
  readonly epoch: number;
  isLive(id: number): boolean;
  /** Length of field `f` of document `id`. */
  length(id: number, f: number): number;
  /**
   * BM25 length norms, `id * FIELD_COUNT + f` → 1 − b + b · length / average length (1 for an empty
   * field average), recomputed in a new epoch and extended to new documents: the ranking reads them.
   */
  norms(b: number): Float32Array;
  /** Bumped whenever the table loaded changes (caches of index data key on it). */
  readonly generation: number;
  facts(id: number): DocFacts;
  /** Marks the table stale after this process wrote to the index (other processes are seen by `data_version`). */
  noteWrite(): void;
}

/** How far (relative) a live average field length may move from the norms' before a new epoch. */
export const NORM_DRIFT = 0.01;

/** Distinct strings numbered in order of arrival. */
function createInterner() {
  const codes = new Map<string, number>();
  const values: string[] = [];
  return {
    code(value: string): number {
      let code = codes.get(value);
      if (code === undefined) {
        code = values.push(value) - 1;
        codes.set(value, code);
      }
      return code;
    },
    value: (code: number): string | undefined => values[code],
  };
}

function grow<T extends Float32Array | Float64Array | Uint8Array | Uint32Array>(arr: T, size: number): T {
  if (arr.length >= size) return arr;
  const next = new (arr.constructor as new (n: number) => T)(Math.max(size, arr.length * 2));
  next.set(arr);
  return next;
}

export function createDocTable(db: Db, repo: SearchIndexRepo): DocTable {
  let lengths = new Float32Array(1024 * FIELD_COUNT);
  let published = new Float64Array(1024);
  let crawled = new Float64Array(1024);
  let categories = new Uint8Array(1024);
  let flags = new Uint8Array(1024); // 1 live, 2 unsafe
  // hosts and countries as numbers into lists of the distinct values: a million strings on the heap
  // would make every full garbage collection of the process longer (a pause holds queries)
  let hostOf = new Uint32Array(1024); // 0: none (a document not loaded)
  let countryOf = new Uint32Array(1024); // 0: none
  const hosts = createInterner();
  const countries = createInterner();
  let loadedTo = 0;
  let avg: number[] = new Array<number>(FIELD_COUNT).fill(0);
  let epoch = 0;
  let count = 0;
  let version = -1;
  const dataVersionOf = db.prepare('PRAGMA data_version').pluck();
  const dataVersion = () => dataVersionOf.get() as number;
  let writes = 0;
  let seenWrites = -1;
  let generation = 0;
  let loadedState = '';
  let norms: { b: number; epoch: number; values: Float32Array; upTo: number } | null = null;
  /** Norms of documents `from…to` (ids) into `values`. */
  const fillNorms = (values: Float32Array, b: number, from: number, to: number) => {
    for (let id = from; id <= to; id++) {
      for (let f = 0, i = id * FIELD_COUNT; f < FIELD_COUNT; f++, i++) {
        const a = avg[f]!;
        values[i] = a > 0 ? 1 - b + (b * lengths[i]!) / a : 1;
      }
    }
  };

  const load = () => {
    for (const row of repo.docsSince(loadedTo)) {
      const id = row[0];
      lengths = grow(lengths, (id + 1) * FIELD_COUNT);
      published = grow(published, id + 1);
      crawled = grow(crawled, id + 1);
      categories = grow(categories, id + 1);
      flags = grow(flags, id + 1);
      for (let f = 0; f < FIELD_COUNT; f++) lengths[id * FIELD_COUNT + f] = row[7 + f] as number;
      published[id] = row[2] ?? Number.NaN;
      crawled[id] = row[3];
      categories[id] = row[4];
      flags[id] = 1 | (row[5] ? 2 : 0);
      hostOf = grow(hostOf, id + 1);
      countryOf = grow(countryOf, id + 1);
      hostOf[id] = hosts.code(row[1]) + 1;
      countryOf[id] = row[6] === null ? 0 : countries.code(row[6]) + 1;
      loadedTo = id;
    }
    const deleted = repo.deletedIds();
    for (const id of deleted) if (id < flags.length) flags[id] = flags[id]! & ~1;
    const stats = repo.stats();
    count = stats.docs;
    const live = stats.lengths.map((total) => (count > 0 ? total / count : 0));
    if (live.some((a, f) => Math.abs(a - avg[f]!) > NORM_DRIFT * avg[f]! || (a === 0) !== (avg[f] === 0))) {
      avg = live;
      epoch++;
    }
    // another process's commit may not have touched the index (a key made, a page cached): keep the
    // caches keyed on the generation unless documents, deletions, statistics or segments (a merge) changed
    const state = `${loadedTo} ${deleted.length} ${count} ${stats.lengths.join(' ')} ${repo.segmentsVersion()}`;
    if (state !== loadedState) generation++;
    loadedState = state;
  };

  const table: DocTable = {
    refresh() {
      const v = dataVersion();
      if (v === version && writes === seenWrites) return;
      version = v;
      seenWrites = writes;
      load();
    },
    get count() {
      return count;
    },
    get maxId() {
      return loadedTo;
    },
    get avgLengths() {
      return avg;
    },
    get epoch() {
      return epoch;
    },
    isLive: (id) => ((flags[id] ?? 0) & 1) === 1,
    length: (id, f) => lengths[id * FIELD_COUNT + f]!,
    get generation() {
      return generation;
    },
    norms(b) {
      if (!norms || norms.b !== b || norms.epoch !== epoch) {
        // room for an eighth more documents: extending the norms to new ones then seldom reallocates
        const values = new Float32Array((loadedTo + 1 + Math.max(1024, loadedTo >> 3)) * FIELD_COUNT);
        fillNorms(values, b, 0, loadedTo);
        norms = { b, epoch, values, upTo: loadedTo };
      } else if (norms.upTo < loadedTo) {
        norms.values = grow(norms.values, (loadedTo + 1) * FIELD_COUNT);
        fillNorms(norms.values, b, norms.upTo + 1, loadedTo);
        norms.upTo = loadedTo;
      }
      return norms.values;
    },
    facts: (id) => ({
      host: id < hostOf.length && hostOf[id]! > 0 ? hosts.value(hostOf[id]! - 1)! : '',
      publishedAt: Number.isNaN(published[id]!) ? null : published[id]!,
      crawledAt: crawled[id]!,
      categories: categories[id]!,
      unsafe: ((flags[id] ?? 0) & 2) === 2,
      country: id < countryOf.length && countryOf[id]! > 0 ? countries.value(countryOf[id]! - 1)! : null,
    }),
    noteWrite() {
      writes++;
    },
  };
  return table;
}
