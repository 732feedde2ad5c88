import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/fetch/api-client.js';
import { fetchError, pause, startSite, type Site } from './fixture.js';

const KEY = 'sk-test-0123456789-secret';

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => resolve(JSON.parse(raw)));
  });
}

describe('api client', () => {
  let site: Site;
  const lines: string[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const client = createApiClient({ logger });

  beforeAll(async () => {
    site = await startSite({
      '/v1/embeddings': async (req, res) => {
        const body = (await readJson(req)) as { input: string[] };
        if (req.headers.authorization !== `Bearer ${KEY}`) {
          return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad key"}');
        }
        const data = body.input.map((text, index) => ({ index, embedding: [text.length, 1] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      },
      '/v1/models': (_req, res) => void res.writeHead(200).end('{"data":[{"id":"m1"}]}'),
      '/v1/overloaded': (_req, res) => void res.writeHead(503).end('x'.repeat(2000)),
      '/v1/slow': async (_req, res) => {
        await pause(1000);
        res.writeHead(200).end('{}');
      },
      '/v1/html': (_req, res) => void res.writeHead(200).end('<html>oops</html>'),
    });
  });
  afterAll(async () => {
    await client.close();
    await site.close();
  });

  it('round-trips JSON with the caller headers', async () => {
    const out = await client.postJson<{ data: { index: number; embedding: number[] }[] }>(
      `${site.origin}/v1/embeddings`,
      { input: ['abc', 'hello'] },
      { headers: { authorization: `Bearer ${KEY}` } },
    );
    expect(out.data).toEqual([
      { index: 0, embedding: [3, 1] },
      { index: 1, embedding: [5, 1] },
    ]);
    expect(site.lastHeaders.get('/v1/embeddings')?.['content-type']).toBe('application/json');
    expect(site.lastHeaders.get('/v1/embeddings')?.['user-agent']).toMatch(/^Trawl\//);
    expect(await client.getJson(`${site.origin}/v1/models`)).toEqual({ data: [{ id: 'm1' }] });
  });

  it('fails with the status tag and the error body, never the key', async () => {
    const err = await fetchError(
      client.postJson(
        `${site.origin}/v1/embeddings?key=${KEY}`,
        { input: ['a'] },
        { headers: { authorization: 'Bearer wrong' } },
      ),
    );
    expect(err).toMatchObject({ tag: 'CRAWL_HTTP_ERROR', httpStatusCode: 401 });
    expect(err.message).toContain('bad key');
    expect(err.message).not.toContain(KEY);
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).toContain('/v1/embeddings?…');
  });

  it('truncates long error bodies, maps 5xx, timeouts and non-JSON answers', async () => {
    const overloaded = await fetchError(client.getJson(`${site.origin}/v1/overloaded`));
    expect(overloaded).toMatchObject({ tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: 503 });
    expect(overloaded.message.length).toBeLessThan(600);
    const slow = await fetchError(client.getJson(`${site.origin}/v1/slow`, { timeoutMs: 200 }));
    expect(slow.tag).toBe('CRAWL_TIMEOUT');
    const html = await fetchError(client.getJson(`${site.origin}/v1/html`));
    expect(html.message).toMatch(/non-JSON/);
  });
});
