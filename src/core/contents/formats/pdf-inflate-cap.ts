/**
 * The inflate cap inside pdf.js, for the PDF worker thread only: every byte a PDF's streams decode to is
 * counted against one budget per document, and decoding stops when it is spent. pdf.js offers no such
 * limit and exports none of its stream classes, so the counting is put where all decoding passes:
 *
 * - `DecodeStream.prototype.ensureBuffer`, which every JavaScript decoder (Flate, LZW, ASCII85, ASCIIHex,
 *   RunLength, CCITT, predictors, decryption, concatenated content streams) calls to grow its output;
 * - `DecompressionStream`, the native inflater pdf.js prefers for Flate content streams, fonts and
 *   CMaps: replaced in this thread by one whose output is counted;
 * - `BrotliStream.prototype.readBlock`, which decodes in one go outside `ensureBuffer`: replaced by
 *   node:zlib's Brotli decoder with `maxOutputLength` (the same bytes for a valid stream).
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
    /** Gives back bytes pdf.js threw away (a native inflate it will redo in JavaScript). */
    refund(bytes: number) {
      used = Math.max(0, used - bytes);
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

/** A `DecompressionStream` whose output is counted; a stream that fails gives its bytes back. */
function countedDecompressionStream(Native: typeof DecompressionStream, budget: Budget) {
  return class CountedDecompressionStream {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: DecompressionStream['writable'];
    constructor(format: ConstructorParameters<typeof DecompressionStream>[0]) {
      const inner = new Native(format);
      const reader = inner.readable.getReader();
      let counted = 0;
      this.writable = inner.writable;
      this.readable = new ReadableStream<Uint8Array>({
        async pull(controller) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (err) {
            // pdf.js decodes a stream the native inflater rejects again in JavaScript: count it once
            budget.refund(counted);
            counted = 0;
            throw err;
          }
          if (chunk.done) return controller.close();
          try {
            budget.take(chunk.value.byteLength);
          } catch (err) {
            void reader.cancel(err).catch(() => undefined);
            throw err;
          }
          counted += chunk.value.byteLength;
          controller.enqueue(chunk.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
    }
  };
}

/** Patches the prototypes of a new stream's chain: DecodeStream once, BrotliStream once. */
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
 * Only for the PDF worker thread: it patches `Object.prototype` and the global `DecompressionStream`.
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
  const Native = globalThis.DecompressionStream;
  if (Native) globalThis.DecompressionStream = countedDecompressionStream(Native, budget) as typeof DecompressionStream; // prettier-ignore
  installed = budget;
  return budget;
}
