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
import { ByteWriter, readVarint } from './byte-writer.js';
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

/** Writes the code units of `s` from `from` as UTF-8 (ASCII directly); the byte count. */
function writeUtf8(w: ByteWriter, s: string, from: number): number {
  const start = w.at;
  w.room((s.length - from) * 3);
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      w.at = start;
      const b = Buffer.from(s.slice(from), 'utf8');
      w.bytes(b);
      return b.length;
    }
    w.buf[w.at++] = c;
  }
  return w.at - start;
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
  private readonly terms = new ByteWriter(1024);
  private readonly data = new ByteWriter(BLOCK_BYTES + 1024);
  private readonly pos = new ByteWriter(BLOCK_BYTES + 1024);
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
    const n = writeUtf8(this.terms, term, shared);
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

/** One directory entry, read at `at`: where its suffix is, its count, its bytes' lengths, where the next starts. */
interface DirEntry {
  shared: number;
  suffix: number;
  length: number;
  n: number;
  dataLen: number;
  posLen: number;
  next: number;
}

function readEntry(dir: Uint8Array, at: number, e: DirEntry): void {
  [e.shared, at] = readVarint(dir, at);
  [e.length, at] = readVarint(dir, at);
  e.suffix = at;
  at += e.length;
  [e.n, at] = readVarint(dir, at);
  [e.dataLen, at] = readVarint(dir, at);
  [e.posLen, e.next] = readVarint(dir, at);
}

type Block = { terms: Uint8Array; data: Uint8Array; pos?: Uint8Array | null };

/** The list an entry points at, its bytes at `dataAt` and `posAt` of the block. */
function listOf(block: Block, e: DirEntry, dataAt: number, posAt: number): PositionedList {
  const pos = e.posLen > 0 && block.pos ? asBuffer(block.pos.subarray(posAt, posAt + e.posLen)) : null;
  return { n: e.n, data: asBuffer(block.data.subarray(dataAt, dataAt + e.dataLen)), pos };
}

/**
 * `term`'s list in a block (the block a lookup by `last` found), or null. Scans the directory without
 * building strings, stopping at the first term past it.
 */
export function findInBlock(block: Block, term: string): PositionedList | null {
  const dir = block.terms;
  const e: DirEntry = { shared: 0, suffix: 0, length: 0, n: 0, dataLen: 0, posLen: 0, next: 0 };
  let at = 0;
  let dataAt = 0;
  let posAt = 0;
  let lcp = 0; // code units the previous entry (below `term`) shares with `term`
  while (at < dir.length) {
    readEntry(dir, at, e);
    at = e.next;
    if (e.shared < lcp) return null; // this entry is past `term`
    if (e.shared === lcp) {
      const [matched, order] = compareSuffix(dir, e.suffix, e.suffix + e.length, term, lcp);
      if (order === 0) return listOf(block, e, dataAt, posAt);
      if (order > 0) return null;
      lcp += matched;
    }
    dataAt += e.dataLen;
    posAt += e.posLen;
  }
  return null;
}

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** Every list of a block, in term order (merges read segments this way). */
export function blockEntries(block: Block): BlockEntry[] {
  const dir = block.terms;
  const e: DirEntry = { shared: 0, suffix: 0, length: 0, n: 0, dataLen: 0, posLen: 0, next: 0 };
  const out: BlockEntry[] = [];
  let at = 0;
  let dataAt = 0;
  let posAt = 0;
  let previous = '';
  while (at < dir.length) {
    readEntry(dir, at, e);
    at = e.next;
    const term = previous.slice(0, e.shared) + utf8(dir, e.suffix, e.suffix + e.length);
    out.push({ term, ...listOf(block, e, dataAt, posAt) });
    previous = term;
    dataAt += e.dataLen;
    posAt += e.posLen;
  }
  return out;
}
