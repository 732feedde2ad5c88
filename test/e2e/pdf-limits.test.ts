/**
 * Issue 32, row 4, replayed through the real REST door: a 1 MB PDF whose one FlateDecode stream
 * inflates to 1 GiB took 21 s, RSS 157 MB → 2.26 GB (1.25 GB after), `/health` timing out. Now the page
 * fails with `CRAWL_TOO_LARGE` naming the cap and its setting, the other pages of the request are read,
 * `/health` answers meanwhile, and RSS comes back near its start; a PDF that reads past its deadline is
 * stopped with `CRAWL_TIMEOUT`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { flateBombPdf, repeatedOpsPdf } from '../helpers/pdf.js';
import { send, startFixtureSite, type FixtureSite } from '../fixtures/site.js';

interface Status {
  id: string;
  status: string;
  error?: { tag: string; httpStatusCode: number | null };
  message?: string;
}

const MB = 1024 * 1024;
let site: FixtureSite;
const servers: TestServer[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  const bomb = flateBombPdf(1024); // 1 MB sent, 1 GiB inflated
  // 25 million `q Q` operators: 100 kB sent, 100 MB inflated (under the cap), many seconds to read
  const slow = repeatedOpsPdf('q Q\n', 25_000_000);
  site.setPage('/bomb.pdf', (_req, res) => send(res, 200, 'application/pdf', bomb));
  site.setPage('/slow.pdf', (_req, res) => send(res, 200, 'application/pdf', slow));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await site.close();
});

async function server(flags: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const t = await startTestServer({ privateAllowlist: ['127.0.0.1'], ...flags });
  servers.push(t);
  return t;
}

/** GET /health one after another until `done` settles; the latency of each (ms), Infinity for a failure. */
async function healthWhile(base: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  const latencies: number[] = [];
  while (!finished) {
    const t0 = performance.now();
    const ok = await fetch(`${base}/health`).then(
      async (res) => (await res.arrayBuffer(), res.status === 200),
      () => false,
    );
    latencies.push(ok ? performance.now() - t0 : Infinity);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return latencies;
}

/** POST /contents for `paths` of the fixture site, with `/health` asked all along. */
async function contentsWithHealth(t: TestServer, paths: string[]) {
  const request = postJson(t.url, '/contents', { urls: paths.map((p) => site.url + p), text: true }, { 'x-api-key': t.key }); // prettier-ignore
  const health = await healthWhile(t.url, request);
  const res = await request;
  expect(res.status).toBe(200);
  const statuses = res.body.statuses as Status[];
  return { statuses, byPath: (p: string) => statuses.find((s) => s.id === site.url + p)!, health, body: res.body };
}

describe('a PDF that inflates to 1 GiB', () => {
  it(
    'fails alone with CRAWL_TOO_LARGE, /health answering meanwhile and memory coming back',
    { timeout: 180_000 },
    async () => {
      const t = await server();
      const rssBefore = process.memoryUsage().rss;
      const { byPath, health, body } = await contentsWithHealth(t, ['/bomb.pdf', '/paper.pdf', '/articles/rust-async']);
      expect(byPath('/bomb.pdf')).toEqual({
        id: `${site.url}/bomb.pdf`,
        status: 'error',
        error: { tag: 'CRAWL_TOO_LARGE', httpStatusCode: null },
        message: "too large: the PDF's compressed streams expand beyond the 134217728-byte cap (128 MiB, TRAWL_DOCUMENT_MAX_INFLATED_BYTES)", // prettier-ignore
      });
      expect([byPath('/paper.pdf').status, byPath('/articles/rust-async').status]).toEqual(['success', 'success']);
      expect((body.results as unknown[]).length).toBe(2);
      // the old code held the event loop for the whole inflate (21 s in the issue): no answer in between
      expect(health.length).toBeGreaterThan(0);
      expect(Math.max(...health)).toBeLessThan(5000);
      // memory is not time: a generous bound, where the old code stayed 1.2 GB up
      await expect.poll(() => process.memoryUsage().rss - rssBefore, { timeout: 10_000 }).toBeLessThan(300 * MB);
    },
  );
});

describe('a PDF that reads past its deadline', () => {
  it('is stopped with CRAWL_TIMEOUT while the other pages are read', { timeout: 120_000 }, async () => {
    const t = await server({ documentParseTimeoutMs: 2000 });
    const { byPath, health } = await contentsWithHealth(t, ['/slow.pdf', '/paper.pdf']);
    expect(byPath('/slow.pdf')).toEqual({
      id: `${site.url}/slow.pdf`,
      status: 'error',
      error: { tag: 'CRAWL_TIMEOUT', httpStatusCode: null },
      message: 'time-out: reading the PDF took longer than 2000 ms (TRAWL_DOCUMENT_PARSE_TIMEOUT_MS)',
    });
    expect(byPath('/paper.pdf').status).toBe('success');
    expect(Math.max(...health)).toBeLessThan(5000);
  });
});
