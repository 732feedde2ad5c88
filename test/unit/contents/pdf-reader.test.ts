/**
 * Issue 32, row 4: PDFs are read in worker threads under an inflate cap, a deadline and a heap limit.
 * Real pdf.js in real threads (the built pdf-worker.js), PDFs built in code for each way a stream inflates.
 */
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../src/config/config.js';
import { parsePdf } from '../../../src/core/contents/formats/pdf.js';
import { DEFAULT_PDF_LIMITS, createPdfReader, type PdfLimits } from '../../../src/core/contents/formats/pdf-reader.js';
import { FetchError } from '../../../src/fetch/types.js';
import { buildPdf, PDF } from '../../fixtures/site/formats.js';
import {
  flateBombPdf,
  objectStreamPdf,
  onePagePdf,
  repeatedOpsPdf,
  repeatedZlib,
  runLengthZeros,
  textPdf,
} from '../../helpers/pdf.js';

const MiB = 1024 * 1024;
const readers: ReturnType<typeof createPdfReader>[] = [];
afterAll(async () => void (await Promise.all(readers.map((r) => r.close()))));

function reader(limits: Partial<PdfLimits> = {}) {
  const r = createPdfReader({ ...DEFAULT_PDF_LIMITS, ...limits });
  readers.push(r);
  return r;
}

/** The FetchError a read fails with (the test fails if it succeeds). */
async function failureOf(read: Promise<unknown>): Promise<FetchError> {
  const err = await read.then(
    () => new Error('the read succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

const capMessage = (bytes: number, size: string) =>
  `too large: the PDF's compressed streams expand beyond the ${bytes}-byte cap (${size}, TRAWL_DOCUMENT_MAX_INFLATED_BYTES)`;

describe('the inflate cap', () => {
  const capped = reader({ maxInflatedBytes: 4 * MiB });
  const brotliZeros = () => zlib.brotliCompressSync(Buffer.alloc(64 * MiB), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }); // prettier-ignore

  it.each([
    ['FlateDecode', () => flateBombPdf(64)],
    ['nested FlateDecode', () => onePagePdf(zlib.deflateSync(repeatedZlib([{ chunk: Buffer.alloc(MiB), times: 64 }])), '/Filter [/FlateDecode /FlateDecode]')], // prettier-ignore
    ['RunLengthDecode (decoded in JavaScript)', () => onePagePdf(runLengthZeros(64 * MiB), '/Filter /RunLengthDecode')],
    ['BrotliDecode', () => onePagePdf(brotliZeros(), '/Filter /BrotliDecode')],
    ['an object stream', () => objectStreamPdf(64)],
  ])('stops %s past the cap, naming it and its setting', async (_name, build) => {
    const err = await failureOf(capped.read(build(), 'https://x.test/bomb.pdf'));
    expect([err.tag, err.message]).toEqual(['CRAWL_TOO_LARGE', capMessage(4 * MiB, '4 MiB')]);
  });

  it('reads the same kinds of streams under the cap, and the next PDF after a bomb', async () => {
    const text = Buffer.from('BT /F1 12 Tf 72 720 Td (Decoded by every filter.) Tj ET', 'latin1');
    const runLength = Buffer.concat([Buffer.from([text.length - 1]), text, Buffer.from([0x80])]);
    const pdfs = [
      onePagePdf(zlib.deflateSync(text), '/Filter /FlateDecode'),
      onePagePdf(zlib.deflateSync(zlib.deflateSync(text)), '/Filter [/FlateDecode /FlateDecode]'),
      onePagePdf(runLength, '/Filter /RunLengthDecode'),
      onePagePdf(zlib.brotliCompressSync(text), '/Filter /BrotliDecode'),
    ];
    for (const pdf of pdfs) {
      const page = await capped.read(pdf, 'https://x.test/ok.pdf');
      expect(page.blocks.map((b) => b.text)).toEqual(['Decoded by every filter.']);
    }
    expect((await capped.read(objectStreamPdf(1), 'https://x.test/objstm.pdf')).kind).toBe('pdf');
  });
});

describe('pages read in a worker thread', () => {
  it('are the pages read in this thread, field for field', async () => {
    const r = reader();
    const flate = onePagePdf(zlib.deflateSync(Buffer.from('BT /F1 18 Tf 72 720 Td (A heading) Tj 0 -30 Td /F1 10 Tf (Body text, inflated.) Tj ET')), '/Filter /FlateDecode'); // prettier-ignore
    for (const pdf of [buildPdf(), textPdf('A line of body text, long enough to be a paragraph.', 40), flate]) {
      const url = 'https://x.test/files/report.pdf';
      expect(await r.read(pdf, url)).toEqual(await parsePdf(new Uint8Array(pdf), url));
    }
    expect((await r.read(buildPdf(), 'https://x.test/p.pdf')).title).toBe(PDF.title);
  });

  it('fail as before when the bytes are not a PDF', async () => {
    const err = await failureOf(reader().read(Buffer.from('hello'), 'https://x.test/a.pdf'));
    expect(err.tag).toBe('CRAWL_UNKNOWN_ERROR');
    expect(err.message).toMatch(/^the PDF could not be read: /);
  });
});

describe('the deadline and the heap limit', () => {
  // 25 million `q Q` operators (100 MB inflated, 100 kB sent): many seconds to read on any machine
  const slow = repeatedOpsPdf('q Q\n', 25_000_000);

  it('stop a read past its deadline, and the next read gets a new thread', async () => {
    const r = reader({ timeoutMs: 2000 });
    const err = await failureOf(r.read(slow, 'https://x.test/slow.pdf'));
    expect([err.tag, err.message]).toEqual(['CRAWL_TIMEOUT', 'time-out: reading the PDF took longer than 2000 ms (TRAWL_DOCUMENT_PARSE_TIMEOUT_MS)']); // prettier-ignore
    expect((await r.read(buildPdf(), 'https://x.test/p.pdf')).title).toBe(PDF.title);
  });

  it('stop a read that needs more heap than the thread has', async () => {
    const r = reader({ memoryMb: 64, timeoutMs: 600_000 });
    // a million text items on alternating lines: far more than 64 MB of objects, 31 MB inflated
    const items = repeatedOpsPdf('(a) Tj 0 -20 Td (b) Tj 0 20 Td\n', 1_000_000, 'BT /F1 10 Tf 72 700 Td\n', 'ET');
    const err = await failureOf(r.read(items, 'https://x.test/items.pdf'));
    expect([err.tag, err.message]).toEqual(['CRAWL_TOO_LARGE', 'too large: reading the PDF needs more than the 64 MB heap of its worker thread (TRAWL_DOCUMENT_PARSE_MEMORY_MB)']); // prettier-ignore
    expect((await r.read(buildPdf(), 'https://x.test/p.pdf')).title).toBe(PDF.title);
  });

  it('let an ordinary PDF through while a slow one runs in the other thread', async () => {
    const r = reader({ timeoutMs: 600_000, threads: 2 });
    const order: string[] = [];
    const slowRead = r.read(slow, 'https://x.test/slow.pdf').then(
      () => order.push('slow'),
      () => order.push('slow'),
    );
    await r.read(buildPdf(), 'https://x.test/p.pdf');
    order.push('ordinary');
    await r.close(); // stops the slow read
    await slowRead;
    expect(order).toEqual(['ordinary', 'slow']);
  });
});

it('has the defaults of the settings', () => {
  expect(DEFAULT_PDF_LIMITS).toEqual({
    maxInflatedBytes: SETTINGS.documentMaxInflatedBytes.default,
    timeoutMs: SETTINGS.documentParseTimeoutMs.default,
    memoryMb: SETTINGS.documentParseMemoryMb.default,
    threads: SETTINGS.documentParseThreads.default,
  });
});
