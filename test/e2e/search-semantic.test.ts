// Semantic search through the REST door with an embeddings provider on loopback (OpenAI wire format):
// documents are embedded in the background into sqlite-vec, and `auto` finds a page that shares no word
// with the query but its meaning, while `instant` (lexical only) does not. A failing provider degrades.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddingsServer, type EmbeddingsServer } from '../helpers/embeddings-server.js';
import { chunksOf } from '../../src/core/search/semantic.js';
import { storedDoc } from '../helpers/documents.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';

// A toy model: words of one meaning share a dimension, so "automobile repair" is near "fix a car".
const CONCEPTS = [
  ['car', 'cars', 'automobile', 'vehicle', 'engine'],
  ['fix', 'repair', 'mend', 'broken'],
  ['bread', 'baking', 'dough', 'oven'],
  ['dog', 'puppy', 'canine'],
];

let embeddings: EmbeddingsServer;

const NOW = '2026-11-20T10:00:00.000Z';
const doc = (url: string, title: string, text: string) => storedDoc(url, title, text);

let t: TestServer;
beforeAll(async () => {
  embeddings = await startEmbeddingsServer(CONCEPTS);
  const base = embeddings.baseUrl;
  t = await startTestServer({ embeddingsUrl: base, embeddingsModel: 'toy-concepts' });
  await t.app.services.documents.upsertMany(
    [
      doc('https://garage.example/fix-a-car', 'How to fix a car', 'Mend the engine when the car is broken.'),
      doc('https://bakery.example/bread', 'Baking bread', 'Knead the dough and heat the oven.'),
      doc('https://vet.example/puppy', 'Puppy care', 'A young dog needs sleep.'),
    ],
    NOW,
  );
  expect(await t.app.services.semantic!.embedPending()).toBe(3);
});
afterAll(async () => {
  await t?.close();
  await embeddings?.close();
});

const search = (body: Record<string, unknown>) => postJson(t.url, '/search', body, { 'x-api-key': t.key });
const urls = (body: Record<string, unknown>) => (body.results as { url: string }[]).map((r) => r.url);

describe('semantic search', () => {
  it('finds a page by meaning with auto, and not with the lexical instant type', async () => {
    const auto = await search({ query: 'automobile repair', type: 'auto', numResults: 1 });
    expect(auto.status).toBe(200);
    expect(urls(auto.body)).toEqual(['https://garage.example/fix-a-car']);
    const instant = await search({ query: 'automobile repair', type: 'instant' });
    expect(urls(instant.body)).toEqual([]);
  });

  it('applies filters to semantic results too', async () => {
    const res = await search({ query: 'automobile repair', type: 'auto', excludeDomains: ['garage.example'] });
    expect(urls(res.body)).not.toContain('https://garage.example/fix-a-car');
  });

  it('embeds only what is new, and answers lexically when the provider fails', async () => {
    expect(await t.app.services.semantic!.embedPending()).toBe(0);
    embeddings.failing = true;
    const res = await search({ query: 'puppy sleep', type: 'auto' });
    embeddings.failing = false;
    expect(res.status).toBe(200);
    expect(urls(res.body)).toEqual(['https://vet.example/puppy']);
  });

  it('chunks long documents at paragraph boundaries, at most four chunks', () => {
    const para = 'word '.repeat(200).trim();
    const chunks = chunksOf('Title', Array.from({ length: 10 }, () => para).join('\n\n'));
    expect(chunks).toHaveLength(4);
    expect(chunks.every((c) => c.length <= 1500)).toBe(true);
    expect(chunks[0]!.startsWith('Title')).toBe(true);
  });
});
