/**
 * The byte format of one segment's postings of a term (docs/search.md, "Storage"):
 *
 * - `data`: the document ids, ascending, as LEB128 varints of their gaps (the first id whole), then one
 *   frequency code per posting: the low four bits say which fields hold the term (`FIELDS` order); a
 *   single field with a count of 1–15 keeps its count in the high four bits, otherwise a count byte
 *   follows for each field in the mask. A common posting (one field, a few occurrences) takes 1 byte.
 * - `pos` (or null when no posting has positions, as in the code index): where the term stands first at
 *   a position of the title and of the body, for the proximity re-rank. Per posting: the title and body
 *   counts (`writeCounts`, one byte for most), then each field's positions as varint gaps. Lists longer than `POS_BLOCK`
 *   start with a uint32 table of where each later block of `POS_BLOCK` postings begins, so one posting's
 *   positions are found without reading the list from its start.
 */
import { ByteWriter as Writer, readVarint } from './byte-writer.js';
import { FIELD_COUNT, type PositionedList } from './search-index.types.js';

/** Postings per block of the positions' skip table. */
export const POS_BLOCK = 64;

/** One posting, decoded: its document, its per-field counts and its title/body positions. */
export interface RawPosting {
  id: number;
  /** Counts per field, `FIELDS` order (each 0–255). */
  freqs: Uint8Array;
  /** The encoded positions entry (counts and gaps), or an empty array. */
  pos: Uint8Array;
}

/** Encodes one document's positions entry: title and body positions, each ascending. */
export function encodePositions(title: readonly number[], body: readonly number[]): Uint8Array {
  return encodeAllPositions(1, [title], [body]).bytes;
}

/**
 * The entries of `n` terms one after another (`title[i]`, `body[i]`: term i's positions, ascending, or
 * undefined), and where each ends.
 */
export function encodeAllPositions(
  n: number,
  title: readonly (readonly number[] | undefined)[],
  body: readonly (readonly number[] | undefined)[],
): { bytes: Uint8Array; ends: Uint32Array } {
  const w = new Writer(n * 4);
  const ends = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const t = title[i] ?? NONE;
    const b = body[i] ?? NONE;
    if (t.length > 0 || b.length > 0) {
      writeCounts(w, t.length, b.length);
      for (const list of [t, b]) {
        let last = 0;
        for (const p of list) {
          w.varint(p - last);
          last = p;
        }
      }
    }
    ends[i] = w.at;
  }
  return { bytes: w.buf.slice(0, w.at), ends };
}
const NONE: readonly number[] = [];

const EMPTY = new Uint8Array(0);
/** The entry of a posting without positions: zero counts. */
const NO_COUNTS = new Uint8Array(1);

/**
 * The two counts of an entry in one varint when the title count is under 3 (most are): body × 4 +
 * title; otherwise body × 4 + 3, then the title count less 3.
 */
function writeCounts(w: Writer, title: number, body: number): void {
  w.varint(body * 4 + Math.min(title, 3));
  if (title >= 3) w.varint(title - 3);
}

function readCounts(buf: Uint8Array, at: number): [title: number, body: number, next: number] {
  const [v, next] = readVarint(buf, at);
  const body = Math.floor(v / 4);
  if (v % 4 < 3) return [v % 4, body, next];
  const [extra, after] = readVarint(buf, next);
  return [3 + extra, body, after];
}

/**
 * Postings laid out flat, as a batch write gathers them: posting `k` is document `ids[k]`, its counts
 * `freqs[k * FIELD_COUNT + f]`, its positions entry the bytes `[posFrom[k], posTo[k])` of
 * `posData[posSource[k]]` (an empty range: no positions).
 */
export interface FlatPostings {
  ids: ArrayLike<number>;
  freqs: Uint8Array;
  posData: readonly Uint8Array[];
  posSource: ArrayLike<number>;
  posFrom: ArrayLike<number>;
  posTo: ArrayLike<number>;
}

const scratchData = new Writer(4096);
const scratchPos = new Writer(4096);

/**
 * Encodes postings `[from, to)` of `flat` (ascending ids). The result's buffers are views of scratch
 * space, valid until the next call: the caller copies them (a block writer does).
 */
export function encodeFlat(flat: FlatPostings, from: number, to: number): PositionedList {
  const n = to - from;
  const w = scratchData;
  w.at = 0;
  let last = 0;
  for (let k = from; k < to; k++) {
    w.varint(flat.ids[k]! - last);
    last = flat.ids[k]!;
  }
  const freqs = flat.freqs;
  let anyPos = false;
  for (let k = from; k < to; k++) {
    if (flat.posTo[k]! > flat.posFrom[k]!) anyPos = true;
    const o = k * FIELD_COUNT;
    let mask = 0;
    let fields = 0;
    let single = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (freqs[o + f]) {
        mask |= 1 << f;
        fields++;
        single = freqs[o + f]!;
      }
    }
    if (fields === 1 && single <= 15) {
      w.byte(mask | (single << 4));
      continue;
    }
    w.byte(mask);
    for (let f = 0; f < FIELD_COUNT; f++) if (freqs[o + f]) w.byte(freqs[o + f]!);
  }
  const data = w.done();
  if (!anyPos) return { n, data, pos: null };
  const pw = scratchPos;
  const blocks = Math.ceil(n / POS_BLOCK) - 1;
  pw.at = 0;
  pw.skip(4 * blocks);
  const start = pw.at;
  for (let k = from; k < to; k++) {
    const i = k - from;
    if (i > 0 && i % POS_BLOCK === 0) pw.u32(pw.at - start, 4 * (i / POS_BLOCK - 1));
    const a = flat.posFrom[k]!;
    const b = flat.posTo[k]!;
    if (b > a) pw.range(flat.posData[flat.posSource[k]!]!, a, b);
    else pw.byte(0); // zero counts
  }
  return { n, data, pos: pw.done() };
}

/** Encodes postings (ascending ids) as `data` and `pos` (null when none has positions), in buffers of their own. */
export function encodePostings(postings: readonly RawPosting[]): PositionedList {
  const n = postings.length;
  const freqs = new Uint8Array(n * FIELD_COUNT);
  postings.forEach((p, k) => freqs.set(p.freqs.subarray(0, FIELD_COUNT), k * FIELD_COUNT));
  const ends = postings.map((p) => p.pos.length);
  const list = encodeFlat(
    {
      ids: postings.map((p) => p.id),
      freqs,
      posData: postings.map((p) => p.pos),
      posSource: postings.map((_, k) => k),
      posFrom: new Array<number>(n).fill(0),
      posTo: ends,
    },
    0,
    n,
  );
  return { n, data: Buffer.from(list.data), pos: list.pos && Buffer.from(list.pos) };
}

/** Reads the ids (ascending) and the per-field counts (`i * FIELD_COUNT + f`) of `n` postings into `ids`/`freqs` at `at`. */
export function decodeInto(n: number, data: Uint8Array, ids: Uint32Array, freqs: Uint8Array, at: number): void {
  let i = 0;
  let id = 0;
  for (let k = 0; k < n; k++) {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = data[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    id += v;
    ids[at + k] = id;
  }
  for (let k = 0; k < n; k++) {
    const code = data[i++]!;
    const o = (at + k) * FIELD_COUNT;
    const high = code >> 4;
    if (high) {
      freqs[o + 31 - Math.clz32(code & 0x0f)] = high;
      continue;
    }
    for (let f = 0; f < FIELD_COUNT; f++) if (code & (1 << f)) freqs[o + f] = data[i++]!;
  }
}

/** Decodes a segment's list into postings (for merges), positions entries included. */
export function decodePostings(n: number, data: Uint8Array, pos: Uint8Array | null): RawPosting[] {
  const ids = new Uint32Array(n);
  const freqs = new Uint8Array(n * FIELD_COUNT);
  decodeInto(n, data, ids, freqs, 0);
  const out: RawPosting[] = [];
  let at = pos ? 4 * (Math.ceil(n / POS_BLOCK) - 1) : 0;
  for (let k = 0; k < n; k++) {
    let entry: Uint8Array = EMPTY;
    if (pos) {
      const from = at;
      at = skipEntry(pos, at);
      entry = pos.subarray(from, at);
      if (entry.length === 1 && entry[0] === 0) entry = EMPTY;
    }
    out.push({ id: ids[k]!, freqs: freqs.subarray(k * FIELD_COUNT, (k + 1) * FIELD_COUNT), pos: entry });
  }
  return out;
}

function skipVarint(buf: Uint8Array, at: number): number {
  while (buf[at++]! & 0x80);
  return at;
}

/** The offset after the positions entry at `at`. */
function skipEntry(pos: Uint8Array, at: number): number {
  const [title, body, next] = readCounts(pos, at);
  at = next;
  for (let k = 0; k < title + body; k++) at = skipVarint(pos, at);
  return at;
}

/** The title and body positions of posting `k` of a list of `n` whose positions are `pos`. */
export function positionsAt(pos: Uint8Array, n: number, k: number): { title: number[]; body: number[] } {
  const blocks = Math.ceil(n / POS_BLOCK) - 1;
  const block = Math.floor(k / POS_BLOCK);
  const view = new DataView(pos.buffer, pos.byteOffset, pos.byteLength);
  let at = 4 * blocks + (block > 0 ? view.getUint32(4 * (block - 1), true) : 0);
  for (let j = block * POS_BLOCK; j < k; j++) at = skipEntry(pos, at);
  const [titleCount, bodyCount, afterCounts] = readCounts(pos, at);
  at = afterCounts;
  const read = (count: number) => {
    const out = new Array<number>(count);
    let p = 0;
    for (let j = 0; j < count; j++) {
      let gap: number;
      [gap, at] = readVarint(pos, at);
      out[j] = p += gap;
    }
    return out;
  };
  const title = read(titleCount);
  return { title, body: read(bodyCount) };
}

/**
 * Joins posting lists into one in ascending id order, dropping the documents in `drop`. Segments merged
 * out of turn can interleave, so the result is sorted when needed: the ranking gallops through lists by id.
 */
export function concatPostings(lists: PositionedList[], drop?: Set<number>): PositionedList {
  const joined = joinRanges(lists, drop);
  if (joined) return joined;
  // decoded flat (no object per posting: lists of a million documents come this way), dropped
  // documents left out, sorted by id when the lists interleave
  const total = lists.reduce((a, l) => a + l.n, 0);
  const ids = new Uint32Array(total);
  const freqs = new Uint8Array(total * FIELD_COUNT);
  const posSource = new Int32Array(total);
  const posFrom = new Int32Array(total);
  const posTo = new Int32Array(total);
  let at = 0;
  lists.forEach(({ n, data, pos }, s) => {
    decodeInto(n, data, ids, freqs, at);
    let p = pos ? 4 * (Math.ceil(n / POS_BLOCK) - 1) : 0;
    for (let k = 0; k < n; k++, at++) {
      posSource[at] = s;
      if (!pos) continue;
      const end = skipEntry(pos, p);
      // an entry of zero counts is a posting without positions
      if (!(end === p + 1 && pos[p] === 0)) [posFrom[at], posTo[at]] = [p, end];
      p = end;
    }
  });
  let order: number[] = [];
  for (let k = 0; k < total; k++) if (!drop?.has(ids[k]!)) order.push(k);
  if (order.some((k, i) => i > 0 && ids[k]! < ids[order[i - 1]!]!)) order = order.sort((a, b) => ids[a]! - ids[b]!);
  const n = order.length;
  const flat = {
    ids: new Uint32Array(n),
    freqs: new Uint8Array(n * FIELD_COUNT),
    posData: lists.map((l) => l.pos ?? EMPTY),
    posSource: new Int32Array(n),
    posFrom: new Int32Array(n),
    posTo: new Int32Array(n),
  };
  order.forEach((k, i) => {
    flat.ids[i] = ids[k]!;
    flat.freqs.set(freqs.subarray(k * FIELD_COUNT, (k + 1) * FIELD_COUNT), i * FIELD_COUNT);
    flat.posSource[i] = posSource[k]!;
    flat.posFrom[i] = posFrom[k]!;
    flat.posTo[i] = posTo[k]!;
  });
  const list = encodeFlat(flat, 0, n);
  return { n, data: Buffer.from(list.data), pos: list.pos && Buffer.from(list.pos) };
}

/**
 * The common case of a merge, without decoding a posting: lists whose ids follow one another (each
 * list's first id above the previous list's last) and hold no dropped document are joined byte-wise;
 * only each list's first gap is written again, and the positions' skip table made anew. Null when the
 * lists do not qualify (the caller decodes and sorts).
 */
function joinRanges(lists: PositionedList[], drop?: Set<number>): PositionedList | null {
  if (lists.length === 0) return null;
  const spans: { first: number; last: number; firstLen: number; idsEnd: number }[] = [];
  let previous = -1;
  for (const { n, data } of lists) {
    if (n === 0) return null;
    let at = 0;
    let id = 0;
    let first = 0;
    let firstLen = 0;
    for (let k = 0; k < n; k++) {
      const [gap, next] = readVarint(data, at);
      id += gap;
      if (k === 0) {
        first = id;
        firstLen = next;
      }
      at = next;
      if (drop?.has(id)) return null;
    }
    if (first <= previous) return null;
    previous = id;
    spans.push({ first, last: id, firstLen, idsEnd: at });
  }
  if (lists.length === 1) return lists[0]!;
  const n = lists.reduce((a, l) => a + l.n, 0);
  const w = new Writer(lists.reduce((a, l) => a + l.data.length, 8));
  lists.forEach((l, i) => {
    const span = spans[i]!;
    w.varint(i === 0 ? span.first : span.first - spans[i - 1]!.last);
    w.bytes(l.data.subarray(span.firstLen, span.idsEnd));
  });
  lists.forEach((l, i) => w.bytes(l.data.subarray(spans[i]!.idsEnd)));
  const data = w.done();
  if (lists.every((l) => !l.pos)) return { n, data, pos: null };
  // entries one after another, every POS_BLOCK-th start recorded for the new skip table
  const blocks = Math.ceil(n / POS_BLOCK) - 1;
  const pw = new Writer(4 * blocks + lists.reduce((a, l) => a + (l.pos?.length ?? l.n), 0));
  pw.at = 4 * blocks;
  const start = pw.at;
  let index = 0;
  for (const l of lists) {
    if (!l.pos) {
      for (let k = 0; k < l.n; k++, index++) {
        if (index > 0 && index % POS_BLOCK === 0) pw.u32(pw.at - start, 4 * (index / POS_BLOCK - 1));
        pw.bytes(NO_COUNTS);
      }
      continue;
    }
    let at = 4 * (Math.ceil(l.n / POS_BLOCK) - 1);
    const from = at;
    for (let k = 0; k < l.n; k++, index++) {
      if (index > 0 && index % POS_BLOCK === 0) pw.u32(pw.at - start + (at - from), 4 * (index / POS_BLOCK - 1));
      at = skipEntry(l.pos, at);
    }
    pw.bytes(l.pos.subarray(from, at));
  }
  return { n, data, pos: pw.done() };
}
