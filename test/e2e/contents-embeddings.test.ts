/**
 * Highlights scored by an embeddings provider: a loopback server speaking the OpenAI embeddings wire
 * format stands in for the paid API. Its vectors make "setup" mean "install", which no lexical model
 * knows, so the top highlight proves the scores are cosines of embeddings.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

const KEY = 'sk-test-embeddings-key';
let t: TestServer;
let site: FixtureSite;
let provider: http.Server;
const seen: { authorization?: string; model?: string; inputs: number }[] = [];

/** 2-d vectors: [1, 0] for text about installing (and the query "setup"), [0, 1] for everything else. */
function vectorOf(text: string): number[] {
  return /install|setup/i.test(text) ? [1, 0] : [0, 1];
}

beforeAll(async () => {
  provider = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      seen.push({ authorization: req.headers.authorization, model, inputs: input.length });
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: data.reverse(), model }));
    });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  const { port } = provider.address() as AddressInfo;
  site = await startFixtureSite();
  t = await startTestServer({
    privateAllowlist: ['127.0.0.1'],
    embeddingsUrl: `http://127.0.0.1:${port}/v1`,
    embeddingsModel: 'test-embed',
    embeddingsApiKey: KEY,
  });
});
afterAll(async () => {
  await t?.close();
  await site?.close();
  await new Promise((r) => provider?.close(r));
});

describe('highlights with an embeddings provider', () => {
  it('scores passages by the cosine of their embeddings with the query', async () => {
    const res = await postJson(
      t.url,
      '/contents',
      { urls: [`${site.url}/docs/getting-started`], highlights: { query: 'setup', maxCharacters: 400 } },
      { 'x-api-key': t.key },
    );
    expect(res.status).toBe(200);
    const [result] = res.body.results as { highlights: string[]; highlightScores: number[] }[];
    expect(result?.highlights[0]).toMatch(/install/i);
    expect(result?.highlightScores[0]).toBe(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ authorization: `Bearer ${KEY}`, model: 'test-embed' });
  });

  it('falls back to lexical scores when the provider fails, and says nothing of the key', async () => {
    provider.removeAllListeners('request');
    provider.on('request', (_req, res) => {
      res.statusCode = 500;
      res.end('{"error":"down"}');
    });
    const res = await postJson(
      t.url,
      '/contents',
      { urls: [`${site.url}/docs/getting-started`], highlights: { query: 'install with npm' } },
      { 'x-api-key': t.key },
    );
    expect(res.status).toBe(200);
    const [result] = res.body.results as { highlights: string[]; highlightScores: number[] }[];
    expect(result?.highlights.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });
});
