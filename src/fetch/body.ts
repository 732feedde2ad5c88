/**
 * Reading a response body under a byte cap (counted while streaming, compressed and decoded alike) and
 * undoing its Content-Encoding (gzip, br, deflate) with node:zlib.
 */
import zlib from 'node:zlib';
import { safeToken } from '../lib/safe-text.js';
import { FetchError } from './types.js';

/** What happens at the cap: fail with `CRAWL_TOO_LARGE`, or keep the first `maxBytes` (robots.txt). */
export type Overflow = 'error' | 'truncate';

export interface BodyLimits {
  maxBytes: number;
  overflow: Overflow;
  /** The setting that raises the cap, named in the too-large message. */
  setting?: string;
}

/** A cap in words: `the 1048576-byte cap (1 MiB, TRAWL_FETCH_MAX_BYTES)`. */
export function capText(maxBytes: number, setting?: string): string {
  const mib = maxBytes / (1024 * 1024);
  const size = mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Math.round(maxBytes / 1024)} KiB`;
  return `the ${maxBytes}-byte cap (${size}${setting ? `, ${setting}` : ''})`;
}

function tooLarge(where: string, limits: BodyLimits): FetchError {
  return new FetchError(
    'CRAWL_TOO_LARGE',
    `${where}: too large: the body is larger than ${capText(limits.maxBytes, limits.setting)}`,
  );
}

/** Collects `chunks` up to the cap; stops reading (and so ends the stream) once it is reached. */
async function collect(chunks: AsyncIterable<Buffer>, limits: BodyLimits, where: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    if (size + chunk.length > limits.maxBytes) {
      if (limits.overflow === 'error') throw tooLarge(where, limits);
      parts.push(chunk.subarray(0, limits.maxBytes - size));
      size = limits.maxBytes;
      break;
    }
    parts.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(parts, size);
}

/** Reads a raw body; a declared Content-Length above the cap fails before any byte is read. */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): void },
  contentLength: string | undefined,
  limits: BodyLimits,
  where: string,
): Promise<Buffer> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (limits.overflow === 'error' && declared > limits.maxBytes) {
    body.destroy();
    throw tooLarge(where, limits);
  }
  try {
    return await collect(body, limits, where);
  } finally {
    body.destroy();
  }
}

function decoderFor(encoding: string, first: number | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate; the zlib header says which.
  return first !== undefined && (first & 0x0f) === 8 ? zlib.createInflate() : zlib.createInflateRaw();
}

/** Undoes `contentEncoding` (a comma list, applied last-first) under the same cap. */
export async function decodeContentEncoding(
  raw: Buffer,
  contentEncoding: string | undefined,
  limits: BodyLimits,
  where: string,
): Promise<Buffer> {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity')
    .reverse();
  let data = raw;
  for (const coding of codings) {
    if (!['gzip', 'x-gzip', 'br', 'deflate'].includes(coding)) {
      // the site chose the coding: named only when it is a well-formed token
      const named = safeToken(coding, 'an unrecognised content coding');
      throw new FetchError('CRAWL_UNKNOWN_ERROR', `${where}: unsupported Content-Encoding: ${named}`);
    }
    if (data.length === 0) continue;
    const stream = decoderFor(coding, data[0]);
    stream.end(data);
    try {
      data = await collect(stream, limits, where);
    } catch (err) {
      if (err instanceof FetchError) throw err;
      throw new FetchError('CRAWL_UNKNOWN_ERROR', `${where}: the ${coding} body is corrupt`, null, { cause: err });
    } finally {
      stream.destroy();
    }
  }
  return data;
}
