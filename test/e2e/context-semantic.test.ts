// /context with an embeddings provider on loopback (OpenAI wire format): code chunks are embedded into
// sqlite-vec, and a question that shares no word with a chunk but its meaning finds it, fused with the
// lexical ranking; a failing provider leaves the lexical answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddingsServer, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import type { ChunkRecord } from '../../src/core/code/index/code-index.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

// A toy model: words of one meaning share a dimension, so "mend an automobile" is near "repairCar".
const CONCEPTS = [
  ['car', 'automobile', 'vehicle', 'engine'],
  ['fix', 'repair', 'mend', 'broken'],
  ['bread', 'bake', 'dough', 'oven'],
];

let embeddings: EmbeddingsServer;

const chunk = (path: string, symbol: string, code: string): ChunkRecord => ({
  source: 'garage',
  path,
  startLine: 1,
  endLine: code.split('\n').length,
  language: 'typescript',
  kind: 'function',
  symbol,
  doc: null,
  code,
});

let t: TestServer;
beforeAll(async () => {
  embeddings = await startEmbeddingsServer(CONCEPTS);
  const base = embeddings.baseUrl;
  t = await startTestServer({ embeddingsUrl: base, embeddingsModel: 'toy-concepts' });
  const chunks = [
    chunk('src/car.ts', 'repairCar', 'export function repairCar(v: Vehicle) {\n  v.engine.reset();\n}'),
    chunk('src/bakery.ts', 'bakeBread', 'export function bakeBread(d: Dough) {\n  return oven.heat(d);\n}'),
  ];
  for (const c of chunks) t.app.services.code.replaceFile(c.source, c.path, [c], c.path, Date.now());
  expect(await t.app.services.codeSemantic!.embedPending()).toBe(2);
});
afterAll(async () => {
  await t?.close();
  await embeddings?.close();
});

const context = (query: string) => postJson(t.url, '/context', { query, tokensNum: 1000 }, { 'x-api-key': t.key });
const symbols = (body: Record<string, unknown>) => (body.sources as { symbol: string }[]).map((s) => s.symbol);

describe('/context with embeddings', () => {
  it('finds a chunk by meaning when no word is shared, fused with the lexical ranking', async () => {
    expect(symbols((await context('mend an automobile')).body)[0]).toBe('repairCar');
    // a lexical match still ranks
    expect(symbols((await context('bake bread')).body)[0]).toBe('bakeBread');
  });

  it('answers lexically when the provider fails', async () => {
    embeddings.failing = true;
    try {
      // new questions (a known one's vector is cached): the lexical list alone
      const res = await context('bake some bread');
      expect(res.status).toBe(200);
      expect(symbols(res.body)).toEqual(['bakeBread']);
      expect(symbols((await context('mend the automobile')).body)).toEqual([]);
    } finally {
      embeddings.failing = false;
    }
  });
});
