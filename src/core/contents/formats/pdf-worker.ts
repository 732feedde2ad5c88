/**
 * A PDF worker thread (started by pdf-reader.ts): reads one PDF at a time, its decoded streams counted
 * against the inflate cap (pdf-inflate-cap.ts), in a thread of its own so that a runaway document costs
 * its deadline and its heap limit, never the thread that answers requests.
 */
import { parentPort } from 'node:worker_threads';
import zlib from 'node:zlib';
import { capText } from '../../../fetch/body.js';
import { FetchError, type CrawlTag } from '../../../fetch/types.js';
import type { Page } from '../page.js';
import { installInflateCap } from './pdf-inflate-cap.js';
import { parsePdf } from './pdf.js';

/** One PDF to read; `bytes` is transferred, not copied. */
export interface PdfJob {
  id: number;
  bytes: Uint8Array;
  url: string;
  maxInflatedBytes: number;
}

/** What the thread says: ready (or unable to enforce the cap), or a job's page or error. */
export type PdfReply =
  | { ready: true }
  | { broken: string }
  | { id: number; page: Page; inflated: number }
  | { id: number; error: { tag: CrawlTag; message: string }; inflated: number; overCap: boolean };

/** The setting that raises the cap, named in the message. */
const CAP_SETTING = 'TRAWL_DOCUMENT_MAX_INFLATED_BYTES';

// nothing may reach the process's stdout (the MCP stdio stream)
process.stdout.write = () => true;
console.log = console.info = console.debug = console.warn = console.dir = () => undefined;

const budget = installInflateCap();
const port = parentPort!;

/** A one-page PDF whose content stream is Flate-compressed: pdf.js builds a decode stream for it. */
function selfCheckPdf(): Uint8Array {
  const content = zlib.deflateSync(Buffer.from('BT /F1 12 Tf 72 700 Td (ok) Tj ET', 'latin1'));
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    `<< /Filter /FlateDecode /Length ${content.length} >>\nstream\n${content.toString('latin1')}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `xref\n0 5\n0000000000 65535 f \n${xref}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${out.length}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/** Loads pdf.js and reads a small PDF: the cap's hook must have taken, or no PDF is read here. */
async function selfCheck(): Promise<PdfReply> {
  budget.start(Infinity);
  try {
    await parsePdf(selfCheckPdf(), 'https://self-check.invalid/check.pdf');
  } catch (err) {
    return { broken: `pdf.js could not read its self-check PDF: ${(err as Error).message}` };
  }
  if (!budget.hooked || budget.used === 0) {
    return { broken: 'the inflate cap could not be installed in this pdfjs-dist version (pdf-inflate-cap.ts)' };
  }
  return { ready: true };
}

function tooLarge(maxBytes: number): FetchError {
  return new FetchError('CRAWL_TOO_LARGE', `too large: the PDF's compressed streams expand beyond ${capText(maxBytes, CAP_SETTING)}`); // prettier-ignore
}

/** Reads one PDF under its cap. pdf.js swallows many errors, so the budget, not the error, says "over". */
async function read(job: PdfJob): Promise<PdfReply> {
  budget.start(job.maxInflatedBytes);
  const checkpoint = () => {
    if (budget.exceeded) throw tooLarge(job.maxInflatedBytes);
  };
  try {
    const page = await parsePdf(job.bytes, job.url, { checkpoint });
    checkpoint();
    return { id: job.id, page, inflated: budget.used };
  } catch (err) {
    const failure = budget.exceeded
      ? tooLarge(job.maxInflatedBytes)
      : err instanceof FetchError
        ? err
        : new FetchError('CRAWL_UNKNOWN_ERROR', `the PDF could not be read: ${(err as Error).message ?? String(err)}`); // prettier-ignore
    const error = { tag: failure.tag, message: failure.message };
    return { id: job.id, error, inflated: budget.used, overCap: budget.exceeded };
  }
}

port.on('message', (job: PdfJob) => {
  void read(job).then((reply) => port.postMessage(reply));
});
void selfCheck().then((reply) => port.postMessage(reply));
