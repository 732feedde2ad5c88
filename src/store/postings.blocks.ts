/**
 * Blocks: a segment's posting lists, many terms to a row (docs/search.md, "Storage"). A row per term
 * cost SQLite more than the postings themselves (a segment of 500 documents has ~10,000 terms, most
 * with one or two postings), so a segment's lists are written in term order into blocks of about
 * `BLOCK_BYTES`; a list longer than that has a block to itself. A block row holds:
 *
 * - `last`: its last term as UTF-16BE bytes, so that SQLite's byte order (memcmp) is the order of
 *   JavaScript's string comparison, in which the terms are sorted; a term is in the first block of its
 *   segment whose `last` is not below it.
 * - `terms`: the directory, per term: the code units it shares with the previous term, its remaining
 *   UTF-8 bytes (a varint count, then the bytes), its posting count, its `data` and `pos` lengths
 *   (varints; a `pos` length of 0 means the list has no positions).
 * - `data` and `pos`: the lists' bytes (`postings.codec.ts`), one after another; `pos` is null when no
 *   list of the block has positions.
 */
import type { PositionedList } from './search-index.types.js';

/** A block closes once its lists reach this many bytes (data and positions). */
export const BLOCK_BYTES = 8192;

/** A block as stored. */
export interface BlockRow {
  last: Buffer;
  terms: Buffer;
  data: Buffer;
  pos: Buffer | null;
}

/** A term's list found in a block, or read from one in order. */
export interface BlockEntry extends PositionedList {
  term: string;
}

/** `term` as UTF-16BE bytes: byte order = JavaScript's string order. */
export function termKey(term: string): Buffer {
  const out = Buffer.allocUnsafe(term.length * 2);
  for (let i = 0; i < term.length; i++) out.writeUInt16BE(term.charCodeAt(i), i * 2);
  return out;
}

/** A growable byte buffer. */
class Bytes {
  buf: Uint8Array;
  at = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }
  varint(v: number): void {
    this.room(5);
    while (v >= 0x80) {
      this.buf[this.at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.at++] = v;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }
  /** The code units of `s` from `from` as UTF-8 (ASCII written directly). */
  utf8(s: string, from: number): number {
    const start = this.at;
    this.room((s.length - from) * 3);
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.at = start;
        const b = Buffer.from(s.slice(from), 'utf8');
        this.bytes(b);
        return b.length;
      }
      this.buf[this.at++] = c;
    }
    return this.at - start;
  }
  take(): Buffer {
    const out = Buffer.from(this.buf.slice(0, this.at));
    this.at = 0;
    return out;
  }
}

/** Code units `a` and `b` share at their start, never ending between the two halves of a surrogate pair. */
function sharedPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i > 0 && i < b.length && (b.charCodeAt(i) & 0xfc00) === 0xdc00) i--;
  return i;
}

/**
 * Packs lists, added in ascending term order (JavaScript's string order), into blocks: `add` returns
 * the blocks it closed (none, one, or two when a long list follows a part-filled block).
 */
export class BlockWriter {
  private readonly terms = new Bytes(1024);
  private readonly data = new Bytes(BLOCK_BYTES + 1024);
  private readonly pos = new Bytes(BLOCK_BYTES + 1024);
  private previous = '';
  private last = '';
  private count = 0;
  private anyPos = false;

  add(term: string, list: PositionedList): BlockRow[] {
    const closed: BlockRow[] = [];
    const size = list.data.length + (list.pos?.length ?? 0);
    if (this.count > 0 && this.data.at + this.pos.at + size > BLOCK_BYTES) closed.push(this.close());
    const shared = sharedPrefix(this.previous, term);
    this.terms.varint(shared);
    const lengthAt = this.terms.at;
    this.terms.room(5);
    this.terms.at += 1; // a one-byte length for suffixes under 128 bytes (all but freak terms)
    const n = this.terms.utf8(term, shared);
    if (n < 0x80) this.terms.buf[lengthAt] = n;
    else {
      const suffix = this.terms.buf.slice(lengthAt + 1, lengthAt + 1 + n);
      this.terms.at = lengthAt;
      this.terms.varint(n);
      this.terms.bytes(suffix);
    }
    this.terms.varint(list.n);
    this.terms.varint(list.data.length);
    this.terms.varint(list.pos?.length ?? 0);
    this.data.bytes(list.data);
    if (list.pos) {
      this.pos.bytes(list.pos);
      this.anyPos = true;
    }
    this.previous = term;
    this.last = term;
    this.count++;
    if (this.data.at + this.pos.at >= BLOCK_BYTES) closed.push(this.close());
    return closed;
  }

  /** The last block, if any list is waiting. */
  finish(): BlockRow | null {
    return this.count > 0 ? this.close() : null;
  }

  private close(): BlockRow {
    const row: BlockRow = {
      last: termKey(this.last),
      terms: this.terms.take(),
      data: this.data.take(),
      pos: this.anyPos ? this.pos.take() : null,
    };
    this.pos.at = 0;
    this.previous = '';
    this.count = 0;
    this.anyPos = false;
    return row;
  }
}

function varint(buf: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  let shift = 0;
  let b: number;
  do {
    b = buf[at++]!;
    v += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [v, at];
}

const decoder = new TextDecoder();

/** The UTF-8 bytes `buf[from, to)` as a string (ASCII without a decoder). */
function utf8(buf: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c >= 0x80) return decoder.decode(buf.subarray(from, to));
    s += String.fromCharCode(c);
  }
  return s;
}

/**
 * Compares the entry whose code units `[0, from)` equal `term`'s with the rest of it in UTF-8 at
 * `buf[at, end)`: how many more code units match, and the order (−1 entry first, 0 equal, 1 after).
 */
function compareSuffix(
  buf: Uint8Array,
  at: number,
  end: number,
  term: string,
  from: number,
): [matched: number, order: number] {
  let k = from;
  while (at < end) {
    let c = buf[at]!;
    if (c < 0x80) at++;
    else {
      // a multi-byte sequence: decode the code point, then compare it as UTF-16
      const width = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      let cp = c & (0xff >> (width + 1));
      for (let j = 1; j < width; j++) cp = (cp << 6) | (buf[at + j]! & 0x3f);
      at += width;
      if (cp >= 0x10000) {
        const high = 0xd800 + ((cp - 0x10000) >> 10);
        const low = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        if (k >= term.length) return [k - from, 1];
        if (term.charCodeAt(k) !== high) return [k - from, high < term.charCodeAt(k) ? -1 : 1];
        k++;
        c = low;
      } else c = cp;
    }
    if (k >= term.length) return [k - from, 1];
    const t = term.charCodeAt(k);
    if (c !== t) return [k - from, c < t ? -1 : 1];
    k++;
  }
  return [k - from, k === term.length ? 0 : -1];
}

/**
 * `term`'s list in a block (the block a lookup by `last` found), or null. Scans the directory without
 * building strings, stopping at the first term past it.
 */
export function findInBlock(
  block: { terms: Uint8Array; data: Uint8Array; pos?: Uint8Array | null },
  term: string,
): PositionedList | null {
  const dir = block.terms;
  let at = 0;
  let dataAt = 0;
  let posAt = 0;
  let lcp = 0; // code units the previous entry (below `term`) shares with `term`
  while (at < dir.length) {
    let shared: number;
    let length: number;
    let n: number;
    let dataLen: number;
    let posLen: number;
    [shared, at] = varint(dir, at);
    [length, at] = varint(dir, at);
    const suffix = at;
    at += length;
    [n, at] = varint(dir, at);
    [dataLen, at] = varint(dir, at);
    [posLen, at] = varint(dir, at);
    if (shared < lcp) return null; // this entry is past `term`
    if (shared === lcp) {
      const [matched, order] = compareSuffix(dir, suffix, suffix + length, term, lcp);
      if (order === 0) {
        const pos = posLen > 0 && block.pos ? block.pos.subarray(posAt, posAt + posLen) : null;
        return { n, data: asBuffer(block.data.subarray(dataAt, dataAt + dataLen)), pos: pos && asBuffer(pos) };
      }
      if (order > 0) return null;
      lcp += matched;
    }
    dataAt += dataLen;
    posAt += posLen;
  }
  return null;
}

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Every list of a block, in term order (merges read segments this way). */
export function blockEntries(block: { terms: Uint8Array; data: Uint8Array; pos: Uint8Array | null }): BlockEntry[] {
  const dir = block.terms;
  const out: BlockEntry[] = [];
  let at = 0;
  let dataAt = 0;
  let posAt = 0;
  let previous = '';
  while (at < dir.length) {
    let shared: number;
    let length: number;
    let n: number;
    let dataLen: number;
    let posLen: number;
    [shared, at] = varint(dir, at);
    [length, at] = varint(dir, at);
    const term = previous.slice(0, shared) + utf8(dir, at, at + length);
    at += length;
    [n, at] = varint(dir, at);
    [dataLen, at] = varint(dir, at);
    [posLen, at] = varint(dir, at);
    const data = asBuffer(block.data.subarray(dataAt, dataAt + dataLen));
    const pos = posLen > 0 && block.pos ? asBuffer(block.pos.subarray(posAt, posAt + posLen)) : null;
    out.push({ term, n, data, pos });
    previous = term;
    dataAt += dataLen;
    posAt += posLen;
  }
  return out;
}
