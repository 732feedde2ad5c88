/**
 * The inflate cap inside pdf.js, for the PDF worker thread only: every byte a PDF's streams decode to is
 * counted against one budget per document, and decoding stops when it is spent. pdf.js offers no such
 * limit and exports none of its stream classes, so the counting is put where all decoding passes:
 *
 * - `DecodeStream.prototype.ensureBuffer`, which every JavaScript decoder (Flate, LZW, ASCII85, ASCIIHex,
 *   RunLength, CCITT, predictors, decryption, concatenated content streams) calls to grow its output;
 * - `BrotliStream.prototype.readBlock`, which decodes in one go outside `ensureBuffer`: replaced by
 *   node:zlib's Brotli decoder with `maxOutputLength` (the same bytes for a valid stream).
 *
 * pdf.js would rather inflate Flate content streams, fonts and CMaps with the native
 * `DecompressionStream` (the streams that say `isAsync`). Here they say they are not, and the global is
 * taken away, so pdf.js uses its JavaScript inflater (as it does whenever the native one fails), which
 * `ensureBuffer` counts. The native inflater hands its output over in 16 KiB chunks that the allocator
 * kept after the thread ended (120 MB after a capped bomb); the JavaScript one grows a few large
 * buffers, which go back to the system. (Taking the global away alone is not enough: pdf.js's fallback
 * fails on nested Flate filters when the inner stream still says `isAsync`.)
 *
 * The classes are found as pdf.js builds its first streams: `DecodeStream`'s constructor assigns
 * `_rawMinBufferLength`, and a setter for that name on `Object.prototype` sees each new stream. The
 * worker's self-check (pdf-worker.ts) refuses to read PDFs when the hook did not take.
 */
import { kMaxLength } from 'node:buffer';
import zlib from 'node:zlib';

/** The per-document budget of decoded bytes. */
export interface InflateBudget {
  /** Starts a document: `maxBytes` may be decoded. */
  start(maxBytes: number): void;
  /** Bytes decoded so far in this document. */
  readonly used: number;
  /** Whether this document went past its cap (then every further decode fails). */
  readonly exceeded: boolean;
  /** Whether pdf.js's decoders are counted (false: the hook found nothing to patch yet). */
  readonly hooked: boolean;
}

/** The name `DecodeStream`'s constructor assigns first (pdfjs-dist 5.x). */
const TRAP = '_rawMinBufferLength';

interface DecodeStreamLike {
  buffer: Uint8Array;
  bufferLength: number;
  minBufferLength: number;
  eof: boolean;
  stream: { getBytes(): Uint8Array };
}

type EnsureBuffer = (this: DecodeStreamLike, requested: number) => Uint8Array;

function createBudget() {
  let max = Infinity;
  let used = 0;
  let exceeded = false;
  const overflow = (): never => {
    exceeded = true;
    throw new Error(`the decoded streams exceed ${max} bytes`);
  };
  return {
    hooked: false,
    start(maxBytes: number) {
      [max, used, exceeded] = [maxBytes, 0, false];
    },
    get used() {
      return used;
    },
    get exceeded() {
      return exceeded;
    },
    get remaining() {
      return Math.max(0, max - used);
    },
    /** Counts `bytes` about to be held; throws (and stays exceeded) past the cap. */
    take(bytes: number) {
      if (exceeded || used + bytes > max) overflow();
      used += bytes;
    },
    overflow,
  };
}

type Budget = ReturnType<typeof createBudget>;

/** DecodeStream.ensureBuffer, counting what it adds: it grows a buffer to the next power of two. */
function countedEnsureBuffer(original: EnsureBuffer, budget: Budget): EnsureBuffer {
  return function ensureBuffer(requested) {
    const have = this.buffer.byteLength;
    if (requested > have) {
      let size = this.minBufferLength;
      while (size < requested) size *= 2;
      budget.take(size - have);
    }
    return original.call(this, requested);
  };
}

/** BrotliStream.readBlock through node:zlib, stopped at the budget's remaining bytes. */
function countedBrotliReadBlock(budget: Budget) {
  return function readBlock(this: DecodeStreamLike): void {
    const input = this.stream.getBytes();
    let out: Buffer;
    try {
      out = zlib.brotliDecompressSync(input, { maxOutputLength: Math.max(1, Math.min(budget.remaining, kMaxLength)) });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') budget.overflow();
      throw err;
    }
    budget.take(out.length);
    this.buffer = new Uint8Array(out.buffer, out.byteOffset, out.length);
    this.bufferLength = out.length;
    this.eof = true;
  };
}

/** Patches the prototypes of a new stream's chain: DecodeStream, Flate and Brotli streams, once each. */
function instrumenter(budget: Budget) {
  const seen = new WeakSet<object>();
  const define = (proto: object, name: string, value: unknown) =>
    Object.defineProperty(proto, name, { value, writable: true, configurable: true });
  return (proto: object | null): void => {
    if (!proto || seen.has(proto)) return;
    seen.add(proto);
    if ((proto.constructor as { name?: string }).name === 'BrotliStream') {
      define(proto, 'readBlock', countedBrotliReadBlock(budget));
    }
    // Flate and Brotli streams own an `isAsync` getter (true: inflate natively); all decode in JavaScript
    if (Object.getOwnPropertyDescriptor(proto, 'isAsync')?.get) {
      Object.defineProperty(proto, 'isAsync', { get: () => false, configurable: true });
    }
    if (budget.hooked) return;
    for (let p: object | null = proto; p; p = Object.getPrototypeOf(p) as object | null) {
      const parent = Object.getPrototypeOf(p) as object | null;
      // DecodeStream: the highest prototype that owns ensureBuffer (image decoders override it with no-ops)
      if (!Object.hasOwn(p, 'ensureBuffer') || (parent && 'ensureBuffer' in parent)) continue;
      define(p, 'ensureBuffer', countedEnsureBuffer((p as { ensureBuffer: EnsureBuffer }).ensureBuffer, budget));
      budget.hooked = true;
      return;
    }
  };
}

let installed: InflateBudget | undefined;

/**
 * Installs the cap in this thread before pdf.js loads; returns the budget each document starts.
 * Only for the PDF worker thread: it patches `Object.prototype` and removes `DecompressionStream`.
 */
export function installInflateCap(): InflateBudget {
  if (installed) return installed;
  const budget = createBudget();
  const instrument = instrumenter(budget);
  Object.defineProperty(Object.prototype, TRAP, {
    configurable: true,
    set(this: object, value: unknown) {
      Object.defineProperty(this, TRAP, { value, writable: true, enumerable: true, configurable: true });
      instrument(Object.getPrototypeOf(this) as object | null);
    },
  });
  Reflect.deleteProperty(globalThis, 'DecompressionStream');
  installed = budget;
  return budget;
}
