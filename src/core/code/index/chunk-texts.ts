/**
 * The text of code chunks, stored compressed many chunks to a block (`code_texts`, migration 16): a
 * chunk's code, then its doc unless the doc is a verbatim part of the code (a docstring). On CoSQA,
 * blocks of 2,048 characters compress code to 45% of its bytes at about 7 µs a chunk (each chunk alone:
 * 57%, at 20 µs; 4,096-character blocks: 44%, but twice the time to inflate one for a result, and
 * their rows packed pages worse). A block is inflated only to return one of its chunks. A small write
 * appends to the newest block while it is under the block size; a block whose chunks are mostly gone
 * (files re-indexed or removed) has the rest moved to a new one and is deleted.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from '../../../store/sqlite/database.js';

/** Characters of text per block (UTF-16 units). */
export const BLOCK_CHARS = 2048;
/**
 * Characters of inflated blocks kept in memory (8 MiB): a query's 60 candidates rarely share a block, and
 * inflating each costs about 10 µs, so the texts that answers keep returning stay inflated.
 */
const CACHED_CHARS = 4 * 2 ** 20;
/**
 * zlib's default level: for blocks this small, setting up the stream costs more than compressing (level 1
 * was 4% larger, no faster). A 4 KiB window (not 32) covers a block of ASCII code and makes that set-up
 * cheaper: CoSQA blocks deflate in 38 µs, not 48, to the same size. Inflating needs no setting (a window
 * of 32 KiB reads any smaller one, so blocks written before read as they are).
 */
const DEFLATE = { level: 6, windowBits: 12 };

/** A chunk's text as stored: its entry (code, then the doc when not inside it) and where the doc is in it. */
export interface TextEntry {
  entry: string;
  codeLen: number;
  /** Offset of the doc in the entry (inside the code for a docstring), or null without a doc. */
  docAt: number | null;
  docLen: number | null;
}

/** A block of texts, deflated. */
export interface PackedBlock {
  /** Characters (UTF-16 units) of its text. */
  size: number;
  data: Uint8Array;
}

function deflate(text: string): Buffer {
  return deflateRawSync(Buffer.from(text, 'utf8'), DEFLATE);
}

/** Entries in blocks of about `BLOCK_CHARS` characters, in order: the blocks, and each entry's block and offset. */
export function packBlocks(entries: string[]): { blocks: PackedBlock[]; places: { block: number; at: number }[] } {
  const blocks: PackedBlock[] = [];
  const places: { block: number; at: number }[] = [];
  let group: string[] = [];
  let size = 0;
  const flush = () => {
    const text = group.join('');
    for (let at = 0, i = 0; i < group.length; at += group[i]!.length, i++) places.push({ block: blocks.length, at });
    blocks.push({ size: text.length, data: deflate(text) });
    group = [];
    size = 0;
  };
  for (const e of entries) {
    if (size > 0 && size + e.length > BLOCK_CHARS) flush();
    group.push(e);
    size += e.length;
  }
  if (group.length > 0) flush();
  return { blocks, places };
}

/** Where an entry was put: its block and its offset there. */
export interface TextPlace {
  text: number;
  at: number;
}

/** The stored form of a chunk's code and doc. */
export function entryOf(code: string, doc: string | null): TextEntry {
  if (doc === null) return { entry: code, codeLen: code.length, docAt: null, docLen: null };
  const inside = doc ? code.indexOf(doc) : -1;
  return inside >= 0
    ? { entry: code, codeLen: code.length, docAt: inside, docLen: doc.length }
    : { entry: code + doc, codeLen: code.length, docAt: code.length, docLen: doc.length };
}

/** A row's place of text: its block (null: stored inline, before migration 16), offset and lengths. */
export interface StoredText {
  text: number | null;
  text_at: number | null;
  code_len: number | null;
  doc_at: number | null;
  doc_len: number | null;
  code: string | null;
  doc: string | null;
}

export interface ChunkTexts {
  /** Stores entries (in one or more blocks, or appended to the newest); their places, in order. Inside a transaction. */
  place(entries: string[]): TextPlace[];
  /** Stores a block packed ahead (`packBlocks`); its id. Inside a transaction. */
  insert(block: PackedBlock): number;
  /**
   * After chunk rows were deleted: drops the blocks none of whose chunks is left, and moves the chunks
   * of blocks mostly emptied to a new block. Inside a transaction.
   */
  release(blocks: Iterable<number>): void;
  /** The code and doc of rows (blocks read once each). */
  read(rows: StoredText[]): { code: string; doc: string | null }[];
}

export function createChunkTexts(db: Db): ChunkTexts {
  const q = {
    insert: db.prepare('INSERT INTO code_texts (size, data) VALUES (?, ?)'),
    newest: db.prepare('SELECT id, size, data FROM code_texts ORDER BY id DESC LIMIT 1'),
    grow: db.prepare('UPDATE code_texts SET size = ?, data = ? WHERE id = ?'),
    size: db.prepare('SELECT size FROM code_texts WHERE id = ?').pluck(),
    drop: db.prepare('DELETE FROM code_texts WHERE id = ?'),
    blocks: db.prepare('SELECT id, data FROM code_texts WHERE id IN (SELECT value FROM json_each(?))').raw(),
    live: db.prepare('SELECT id, text_at, code_len, doc_at, doc_len FROM code_chunks WHERE text = ?').raw(),
    move: db.prepare('UPDATE code_chunks SET text = ?, text_at = ? WHERE id = ?'),
  };
  // A committed block's text only ever grows at its end (ids are never reused), so a cached copy stays a
  // prefix of it. Only committed texts are cached (a write of this process, which may yet roll back, clears
  // the cache and is not cached).
  const cache = new Map<number, string>();
  let cachedChars = 0;
  const forget = () => {
    cache.clear();
    cachedChars = 0;
  };
  const remember = (id: number, text: string) => {
    if (db.inTransaction) return;
    cachedChars += text.length - (cache.get(id)?.length ?? 0);
    cache.delete(id);
    cache.set(id, text);
    for (const [oldest, old] of cache) {
      if (cachedChars <= CACHED_CHARS) break;
      cache.delete(oldest);
      cachedChars -= old.length;
    }
  };
  const inflate = (data: Buffer) => inflateRawSync(data).toString('utf8');

  /** The texts of blocks, each at least `need[id]` long (a shorter cached copy predates an append). */
  const blocksOf = (need: Map<number, number>): Map<number, string> => {
    const out = new Map<number, string>();
    const missing: number[] = [];
    for (const [id, length] of need) {
      const hit = cache.get(id);
      if (hit !== undefined && hit.length >= length) {
        out.set(id, hit);
        cache.delete(id); // most recently used last
        cache.set(id, hit);
      } else missing.push(id);
    }
    if (missing.length > 0) {
      for (const [id, data] of q.blocks.all(JSON.stringify(missing)) as [number, Buffer][]) {
        const text = inflate(data);
        remember(id, text);
        out.set(id, text);
      }
    }
    return out;
  };

  const insert = (b: PackedBlock) => Number(q.insert.run(b.size, b.data).lastInsertRowid);

  const place = (entries: string[]): TextPlace[] => {
    forget();
    const total = entries.reduce((n, e) => n + e.length, 0);
    const newest = total <= BLOCK_CHARS ? (q.newest.get() as { id: number; size: number; data: Buffer } | undefined) : undefined; // prettier-ignore
    if (newest && newest.size + total <= BLOCK_CHARS) {
      // a small write: appended to the newest block, which is rewritten with it
      const text = inflate(newest.data) + entries.join('');
      q.grow.run(text.length, deflate(text), newest.id);
      let from = newest.size;
      return entries.map((e) => ({ text: newest.id, at: (from += e.length) - e.length }));
    }
    const packed = packBlocks(entries);
    const ids = packed.blocks.map(insert);
    return packed.places.map((p) => ({ text: ids[p.block]!, at: p.at }));
  };

  return {
    place,
    insert(block) {
      forget();
      return insert(block);
    },
    release(blocks) {
      forget();
      const moved: { id: number; entry: string; at: number }[] = [];
      for (const block of blocks) {
        const rows = q.live.all(block) as [number, number, number, number | null, number | null][];
        const end = (r: (typeof rows)[number]) => Math.max(r[2], r[3] === null ? 0 : r[3] + r[4]!);
        const live = rows.reduce((n, r) => n + end(r), 0);
        if (rows.length > 0 && live * 2 >= (q.size.get(block) as number)) continue;
        if (rows.length > 0) {
          const text = blocksOf(new Map([[block, 0]])).get(block)!;
          for (const r of rows) moved.push({ id: r[0], entry: text.slice(r[1], r[1] + end(r)), at: 0 });
        }
        q.drop.run(block);
      }
      if (moved.length === 0) return;
      const places = place(moved.map((m) => m.entry));
      moved.forEach((m, i) => q.move.run(places[i]!.text, places[i]!.at, m.id));
    },
    read(rows) {
      const need = new Map<number, number>();
      for (const r of rows) {
        if (r.text === null) continue;
        const end = r.text_at! + Math.max(r.code_len!, r.doc_at === null ? 0 : r.doc_at + r.doc_len!);
        need.set(r.text, Math.max(need.get(r.text) ?? 0, end));
      }
      const blocks = blocksOf(need);
      return rows.map((r) => {
        // rows of before migration 16 hold their code, and their doc unless it is inside the code
        const base = r.text === null ? r.code! : (blocks.get(r.text) ?? '');
        const at = r.text === null ? 0 : r.text_at!;
        const code = r.text === null ? r.code! : base.slice(at, at + r.code_len!);
        const doc = r.doc ?? (r.doc_at === null ? null : base.slice(at + r.doc_at, at + r.doc_at + r.doc_len!));
        return { code, doc };
      });
    },
  };
}
