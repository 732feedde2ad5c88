/** A growable byte buffer with LEB128 varints, and the varint reader: what the postings and block formats are made with. */
export class ByteWriter {
  buf: Uint8Array;
  at = 0;
  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }
  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
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
  u32(v: number, at: number): void {
    this.buf[at] = v & 0xff;
    this.buf[at + 1] = (v >>> 8) & 0xff;
    this.buf[at + 2] = (v >>> 16) & 0xff;
    this.buf[at + 3] = (v >>> 24) & 0xff;
  }
  /** Copies `src[from, to)` (short ranges: a loop beats a view). */
  range(src: Uint8Array, from: number, to: number): void {
    this.room(to - from);
    for (let i = from; i < to; i++) this.buf[this.at++] = src[i]!;
  }
  skip(n: number): void {
    this.room(n);
    this.at += n;
  }
  /** What was written, as a view of the writer's buffer (valid until it is written again). */
  done(): Buffer {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset, this.at);
  }
  /** What was written, as a buffer of its own; the writer starts again empty. */
  take(): Buffer {
    const out = Buffer.from(this.buf.slice(0, this.at));
    this.at = 0;
    return out;
  }
}

/** The LEB128 varint at `at` of `buf`, and the offset after it. */
export function readVarint(buf: Uint8Array, at: number): [value: number, next: number] {
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
