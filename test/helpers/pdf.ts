/**
 * PDFs built in code for the PDF limits' tests: zlib streams of repeated data (1 GiB of zeros from
 * 1 MB, without ever holding the gigabyte), one-page PDFs around a content stream, a catalog in an
 * object stream, and the streams of the other filters (RunLength, Brotli, nested Flate).
 */
import zlib from 'node:zlib';

/** `chunk` repeated `times` times. */
export interface Repeat {
  chunk: Buffer;
  times: number;
}

const MOD = 65521n;

/** Adler-32 state after `parts` (sums of a repeated chunk in closed form: no pass over the output). */
function adler32(parts: Repeat[]): number {
  let [a, b] = [1n, 0n];
  for (const { chunk, times } of parts) {
    const n = BigInt(chunk.length);
    const k = BigInt(times);
    let [sum, weighted] = [0n, 0n];
    chunk.forEach((byte, i) => {
      sum += BigInt(byte);
      weighted += BigInt(chunk.length - i) * BigInt(byte);
    });
    // over N = k·n bytes: a += Σd; b += N·a + Σ(N - i)·d_i, the chunk's weights shifted by n per copy
    const total = k * sum;
    const weights = n * sum * ((k * (k - 1n)) / 2n) + k * weighted;
    b = (b + k * n * a + weights) % MOD;
    a = (a + total) % MOD;
  }
  return Number((b << 16n) | a);
}

/**
 * A zlib stream of the parts: each chunk deflated once with a full flush (byte-aligned, no reference to
 * earlier data) and the segment repeated, then an empty final block and the Adler-32 of it all.
 */
export function repeatedZlib(parts: Repeat[]): Buffer {
  const segments = parts.flatMap(({ chunk, times }) => {
    const segment = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
    return Array<Buffer>(times).fill(segment);
  });
  const check = Buffer.alloc(4);
  check.writeUInt32BE(adler32(parts) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...segments, Buffer.from([0x03, 0x00]), check]);
}

/** A PDF object: a dictionary (or any object) as text, or a stream with its dictionary's entries. */
export type PdfObject = string | { dict: string; data: Buffer };

/** A PDF 1.4 of `objects` (numbered from 1) with an exact xref table; object 1 is the catalog. */
export function pdfOf(objects: PdfObject[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets = objects.map((object, i) => {
    const body =
      typeof object === 'string'
        ? Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1')
        : Buffer.concat([
            Buffer.from(`${i + 1} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`, 'latin1'),
            object.data,
            Buffer.from('\nendstream\nendobj\n', 'latin1'),
          ]);
    chunks.push(body);
    length += body.length;
    return length - body.length;
  });
  const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  const size = objects.length + 1;
  chunks.push(
    Buffer.from(
      `xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(chunks);
}

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'; // prettier-ignore
const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** A one-page PDF drawing `data`, a content stream whose dictionary has `dict` (e.g. its `/Filter`). */
export function onePagePdf(data: Buffer, dict = ''): Buffer {
  return pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, { dict, data }, HELVETICA]); // prettier-ignore
}

/** The bomb: one FlateDecode content stream of `mib` MiB of zeros (about 1 MB per GiB). */
export function flateBombPdf(mib = 1024): Buffer {
  return onePagePdf(repeatedZlib([{ chunk: Buffer.alloc(1 << 20), times: mib }]), '/Filter /FlateDecode');
}

/**
 * A page of `ops` repeated `times` times (a multiple of 1000) between `before` and `after` (Flate), e.g.
 * `q Q\n`: long to read, small to send.
 */
export function repeatedOpsPdf(ops: string, times: number, before = '', after = ''): Buffer {
  const text = (s: string) => Buffer.from(s, 'latin1');
  const parts = [{ chunk: text(ops.repeat(1000)), times: times / 1000 }];
  if (before) parts.unshift({ chunk: text(before), times: 1 });
  if (after) parts.push({ chunk: text(after), times: 1 });
  return onePagePdf(repeatedZlib(parts), '/Filter /FlateDecode');
}

/** A page of `lines` text lines that say `line`, uncompressed. */
export function textPdf(line: string, lines = 1): Buffer {
  const shown = Array.from({ length: lines }, (_, i) => `${i === 0 ? '' : '0 -14 Td '}(${line}) Tj`).join('\n');
  return onePagePdf(Buffer.from(`BT /F1 12 Tf 72 720 Td\n${shown}\nET`, 'latin1'));
}

/** RunLengthDecode of `bytes` zeros (2 bytes per 128), then its end-of-data marker. */
export function runLengthZeros(bytes: number): Buffer {
  const runs = Math.ceil(bytes / 128);
  const out = Buffer.alloc(runs * 2 + 1);
  for (let i = 0; i < runs; i++) out[i * 2] = 0x81; // repeat the next byte (0) 257 - 0x81 = 128 times
  out[runs * 2] = 0x80;
  return out;
}

/**
 * A PDF 1.5 whose catalog is the one object of a Flate object stream, followed there by `padding` MiB of
 * zeros (whitespace to a PDF lexer); found through a cross-reference stream.
 */
export function objectStreamPdf(padding: number): Buffer {
  const head = Buffer.from('1 0 << /Type /Catalog /Pages 2 0 R >>\n', 'latin1');
  const objStm = repeatedZlib([
    { chunk: head, times: 1 },
    { chunk: Buffer.alloc(1 << 20), times: padding },
  ]);
  const objects: PdfObject[] = [
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    { dict: '/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', data: objStm },
  ];
  const chunks = [Buffer.from('%PDF-1.5\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets = objects.map((object, i) => {
    const number = i + 2;
    const body =
      typeof object === 'string'
        ? Buffer.from(`${number} 0 obj\n${object}\nendobj\n`, 'latin1')
        : Buffer.concat([Buffer.from(`${number} 0 obj\n<< ${object.dict} /Length ${object.data.length} >>\nstream\n`, 'latin1'), object.data, Buffer.from('\nendstream\nendobj\n', 'latin1')]); // prettier-ignore
    chunks.push(body);
    length += body.length;
    return length - body.length;
  });
  // entries of 1 + 4 + 2 bytes: 0 free; 1 in object stream 4 at index 0; 2-4 at their offsets; 5 the xref stream
  const entry = (type: number, field: number, extra: number) => {
    const b = Buffer.alloc(7);
    b.writeUInt8(type, 0);
    b.writeUInt32BE(field, 1);
    b.writeUInt16BE(extra, 5);
    return b;
  };
  const rows = Buffer.concat([entry(0, 0, 65535), entry(2, 4, 0), ...offsets.map((o) => entry(1, o, 0)), entry(1, length, 0)]); // prettier-ignore
  chunks.push(
    Buffer.from(`5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length ${rows.length} >>\nstream\n`, 'latin1'),
    rows,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${length}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(chunks);
}
