import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/fetch/api-client.js';
import { createOpenAiEmbedder } from '../../../src/providers/embeddings.js';

/** Deterministic vectors: word counts hashed (FNV-1a) into 16 buckets. */
function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(16).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0x811c9dc5;
    for (const ch of word) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    vector[hash % 16]! += 1;
  }
  return vector;
}

// A loopback server speaking the OpenAI embeddings wire format; it answers `data` in reverse order.
const seen: { authorization?: string; model: string; input: string[]; dimensions?: number }[] = [];
let mode: 'ok' | 'fail' | 'short' | 'garbage' = 'ok';
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
    const parsed = JSON.parse(body) as { model: string; input: string[]; dimensions?: number };
    seen.push({ authorization: req.headers.authorization, ...parsed });
    if (mode === 'fail')
      return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"overloaded"}');
    const data = parsed.input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) }));
    if (mode === 'short') data.pop();
    if (mode === 'garbage') data[0]!.embedding = ['x'] as unknown as number[];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', model: parsed.model, data: data.reverse() }));
  });
});

let baseUrl = '';
let client: ApiClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  client = createApiClient({ userAgent: 'trawl-test' });
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  mode = 'ok';
});

describe('createOpenAiEmbedder', () => {
  it('speaks the wire format, batches, and orders vectors by index', async () => {
    const embedder = createOpenAiEmbedder({
      baseUrl,
      apiKey: 'sk-secret',
      model: 'test-embed',
      post: client.postJson,
      batchSize: 3,
    });
    const texts = ['alpha', 'beta gamma', '', 'delta', 'alpha beta', 'epsilon', 'zeta'];
    const vectors = await embedder.embed(texts);
    expect(embedder.model).toBe('test-embed');
    expect(vectors).toEqual(texts.map((t) => fakeEmbedding(t.trim() ? t : ' ')));
    expect(seen.map((r) => r.input.length)).toEqual([3, 3, 1]);
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer sk-secret',
      model: 'test-embed',
      input: ['alpha', 'beta gamma', ' '],
    });
  });

  it('sends no Authorization header without a key, and passes dimensions', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'local', post: client.postJson, dimensions: 16 });
    await embedder.embed(['one']);
    expect(seen[0]!.authorization).toBeUndefined();
    expect(seen[0]!.dimensions).toBe(16);
  });

  it('makes no request for no texts', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'm', post: client.postJson });
    expect(await embedder.embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
  });

  it('reports provider failures as UNABLE_TO_GENERATE_RESPONSE without the key', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, apiKey: 'sk-very-secret', model: 'm', post: client.postJson });
    mode = 'fail';
    const failure = await embedder.embed(['x']).catch((err: Error & { tag?: string }) => err);
    expect(failure).toMatchObject({ tag: 'UNABLE_TO_GENERATE_RESPONSE' });
    expect((failure as Error).message).toContain('m');
    expect((failure as Error).message).not.toContain('sk-very-secret');
    mode = 'short';
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/returned 1 vectors for 2 inputs/);
    mode = 'garbage';
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/malformed vector/);
  });

  it('stops when the signal is aborted', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'm', post: client.postJson, batchSize: 1 });
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a', 'b'], controller.signal)).rejects.toThrow();
    expect(seen).toHaveLength(0);
  });
});
