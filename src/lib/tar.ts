/**
 * A tar archive of a few regular files (POSIX ustar), written and read with node's own file handles: the
 * one-file format of `trawl backup`, which `tar -tvf` lists and `tar -xf` unpacks. Only what a backup
 * needs: plain names (no folders, links or long names), sizes past 8 GiB in GNU's base-256 form.
 */
import type { FileHandle } from 'node:fs/promises';

const BLOCK = 512;
const COPY_CHUNK = 1 << 20;
/** The largest size the 11 octal digits of ustar hold; larger sizes are written base-256. */
const OCTAL_MAX = 8 ** 11 - 1;

/** A file inside an archive. */
export interface TarEntry {
  name: string;
  size: number;
  /** Where its bytes begin in the archive. */
  offset: number;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header block for a regular file `name` of `size` bytes. */
export function tarHeader(name: string, size: number, mtimeMs: number): Buffer {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(name)) throw new Error(`tar: ${JSON.stringify(name)} is not a plain file name`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 'ascii');
  h.write(octal(0o600, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  if (size <= OCTAL_MAX) h.write(octal(size, 12), 124, 'ascii');
  else {
    h[124] = 0x80; // GNU base-256: the rest of the field is the size, big-endian
    h.writeBigUInt64BE(BigInt(size), 128);
  }
  h.write(octal(Math.floor(mtimeMs / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Writes one archive to `out`: `add` each file in turn, then `end`. */
export function createTarWriter(out: FileHandle) {
  let position = 0;
  const write = async (buf: Buffer) => {
    await out.write(buf, 0, buf.length, position);
    position += buf.length;
  };
  return {
    /**
     * Appends `size` bytes read from `source` under `name`; `onChunk` sees each chunk as it is written
     * (a checksum, progress). Throws when the source holds fewer bytes than `size`.
     */
    async add(name: string, source: FileHandle, size: number, onChunk?: (chunk: Buffer) => void): Promise<void> {
      await write(tarHeader(name, size, Date.now()));
      const buf = Buffer.alloc(Math.min(COPY_CHUNK, Math.max(size, 1)));
      for (let done = 0; done < size;) {
        const { bytesRead } = await source.read(buf, 0, Math.min(buf.length, size - done), done);
        if (bytesRead === 0) throw new Error(`tar: ${name} ended after ${done} of ${size} bytes`);
        const chunk = buf.subarray(0, bytesRead);
        onChunk?.(chunk);
        await write(chunk);
        done += bytesRead;
      }
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad > 0) await write(Buffer.alloc(pad));
    },
    /** Appends a small file held in memory. */
    async addBuffer(name: string, data: Buffer): Promise<void> {
      await write(tarHeader(name, data.length, Date.now()));
      await write(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) await write(Buffer.alloc(pad));
    },
    /** The two zero blocks that end an archive. */
    end: () => write(Buffer.alloc(2 * BLOCK)),
  };
}

function parseSize(h: Buffer): number {
  if (h[124]! & 0x80) {
    const size = h.readBigUInt64BE(128);
    if (h.subarray(125, 128).some((b) => b !== 0) || size > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Error('tar: an entry is larger than this reader handles');
    }
    return Number(size);
  }
  const text = h.toString('ascii', 124, 136).replace(/[\0 ]+$/, '');
  if (!/^[0-7]+$/.test(text)) throw new Error('tar: a header holds no valid size');
  return parseInt(text, 8);
}

function checksumOk(h: Buffer): boolean {
  const stored = parseInt(h.toString('ascii', 148, 156).replace(/[\0 ]+$/, ''), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return stored === sum;
}

/**
 * The regular files of the archive in `input` (of `length` bytes), with where their bytes are. Throws,
 * saying what is wrong, on a truncated archive, a damaged header, or an entry that is not a plain file.
 */
export async function listTar(input: FileHandle, length: number): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const h = Buffer.alloc(BLOCK);
  for (let at = 0; ;) {
    if (at + BLOCK > length) throw new Error('tar: the archive is truncated (no end marker)');
    const { bytesRead } = await input.read(h, 0, BLOCK, at);
    if (bytesRead !== BLOCK) throw new Error('tar: the archive is truncated (no end marker)');
    if (h.every((b) => b === 0)) return entries;
    if (!checksumOk(h)) throw new Error(`tar: the header at byte ${at} is damaged (checksum mismatch)`);
    const type = String.fromCharCode(h[156]!);
    if (type !== '0' && type !== '\0') throw new Error(`tar: the entry at byte ${at} is not a regular file`);
    const name = h.toString('ascii', 0, 100).replace(/\0.*$/s, '');
    const size = parseSize(h);
    if (at + BLOCK + size > length) throw new Error(`tar: ${name} is truncated`);
    entries.push({ name, size, offset: at + BLOCK });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** Copies an entry's bytes from `input` to `out`, `onChunk` seeing each chunk. */
export async function extractTarEntry(
  input: FileHandle,
  entry: TarEntry,
  out: FileHandle,
  onChunk?: (chunk: Buffer) => void,
): Promise<void> {
  const buf = Buffer.alloc(Math.min(COPY_CHUNK, Math.max(entry.size, 1)));
  for (let done = 0; done < entry.size;) {
    const { bytesRead } = await input.read(buf, 0, Math.min(buf.length, entry.size - done), entry.offset + done);
    if (bytesRead === 0) throw new Error(`tar: ${entry.name} is truncated`);
    const chunk = buf.subarray(0, bytesRead);
    onChunk?.(chunk);
    await out.write(chunk, 0, chunk.length, done);
    done += bytesRead;
  }
}
