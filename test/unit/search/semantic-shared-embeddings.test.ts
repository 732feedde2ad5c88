// Embeddings stored once on PostgreSQL: two replicas (each its own SQLite store and vector index) share
// one schema and one loopback embeddings provider (OpenAI wire format). What the first embeds, the
// second takes from the store without asking the provider, and both answer a query alike; a document
// only the second has is the only text it sends. Without the shared store nothing changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chunksOf, createSemanticSearch } from '../../../src/core/search/semantic.js';
import { createSearchIndex } from '../../../src/core/search/search-index.js';
import { localWrites } from '../../../src/core/documents/write-path.js';
import { createApiClient } from '../../../src/fetch/api-client.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createOpenAiEmbedder } from '../../../src/providers/embeddings.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { createDocumentsRepo } from '../../../src/store/sqlite/documents.js';
import type { SharedEmbeddings } from '../../../src/store/contracts/embeddings.js';
import { createPgSharedEmbeddings } from '../../../src/store/pg/embeddings.js';
import { storedDoc } from '../../helpers/documents.js';
import { startEmbeddingsServer, toyEmbedding, type EmbeddingsServer } from '../../helpers/embeddings-server.js';
import { freshPgStore, pgReachable } from '../../helpers/postgres.js';

const CONCEPTS = [
  ['car', 'cars', 'automobile', 'vehicle', 'engine'],
  ['fix', 'repair', 'mend', 'broken'],
  ['bread', 'baking', 'dough', 'oven'],
  ['dog', 'puppy', 'canine'],
];
const DOCS = [
  storedDoc('https://garage.example/fix-a-car', 'How to fix a car', 'Mend the engine when the car is broken.'),
  storedDoc('https://bakery.example/bread', 'Baking bread', 'Knead the dough and heat the oven.'),
  storedDoc('https://vet.example/puppy', 'Puppy care', 'A young dog needs sleep.'),
  storedDoc('https://garage.example/long', 'Engines', Array.from({ length: 6 }, () => 'The engine of a vehicle. '.repeat(70)).join('\n\n')), // prettier-ignore
];
const NOW = '2026-11-26T10:00:00.000Z';

let provider: EmbeddingsServer;
beforeAll(async () => {
  provider = await startEmbeddingsServer(CONCEPTS);
});
afterAll(() => provider?.close());
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const client = createApiClient({ userAgent: 'trawl-test' });

/** A replica: its own SQLite store and index with `docs`, and a semantic search over them. */
async function replica(docs: typeof DOCS, shared?: SharedEmbeddings) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-embeddings-'));
  const db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  const index = createSearchIndex(db, stored);
  await localWrites(db, stored, index).upsertMany(docs, NOW);
  cleanups.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const embedder = createOpenAiEmbedder({ baseUrl: provider.baseUrl, model: 'toy-concepts', post: client.postJson });
  const semantic = createSemanticSearch({ db, documents: stored, embedder, logger: createLogger('silent'), shared });
  const nearestUrls = async (query: string) => [...index.urls(await semantic.nearest(query, 4)).values()];
  return { semantic, nearestUrls };
}

/** Provider calls made while `work` runs. */
async function callsDuring(work: () => Promise<unknown>) {
  const before = { ...provider.calls };
  await work();
  return { requests: provider.calls.requests - before.requests, inputs: provider.calls.inputs - before.inputs };
}

const chunkCount = (docs: typeof DOCS) => docs.reduce((n, d) => n + chunksOf(d.title, d.text).length, 0);

describe.runIf(pgReachable)('embeddings stored once on PostgreSQL', () => {
  it('lets a second replica embed the same documents without the provider, and answer alike', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgSharedEmbeddings(store.pool);
    const a = await replica(DOCS, shared);
    const first = await callsDuring(() => a.semantic.embedPending());
    expect(first.inputs).toBe(1 + chunkCount(DOCS)); // the size probe, then every chunk once

    const b = await replica(DOCS, createPgSharedEmbeddings(store.pool));
    expect(await callsDuring(() => b.semantic.embedPending())).toEqual({ requests: 0, inputs: 0 });
    expect(await b.semantic.embedPending()).toBe(0);

    for (const query of ['automobile repair', 'puppy', 'oven dough']) {
      const answer = await a.nearestUrls(query);
      expect(answer.length).toBeGreaterThan(0);
      expect(await b.nearestUrls(query)).toEqual(answer);
    }
    expect((await a.nearestUrls('automobile repair'))[0]).toBe('https://garage.example/fix-a-car');

    // stored once, as the float32 of what the provider answered
    const { rows } = await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM embedding_vectors');
    expect(rows[0]!.n).toBe(chunkCount(DOCS));
    const [text] = chunksOf(DOCS[2]!.title, DOCS[2]!.text);
    const [vector] = await shared.find('toy-concepts', CONCEPTS.length + 1, [text!]);
    expect(vector).toEqual(Float32Array.from(toyEmbedding(CONCEPTS, text!)));
  });

  it('sends the provider only the texts no replica has embedded', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const a = await replica(DOCS.slice(0, 2), createPgSharedEmbeddings(store.pool));
    await a.semantic.embedPending();
    const b = await replica(DOCS, createPgSharedEmbeddings(store.pool));
    expect(await callsDuring(() => b.semantic.embedPending())).toEqual({ requests: 1, inputs: chunkCount(DOCS.slice(2)) }); // prettier-ignore
    const c = await replica(DOCS, createPgSharedEmbeddings(store.pool));
    expect(await callsDuring(() => c.semantic.embedPending())).toEqual({ requests: 0, inputs: 0 });
    expect(await c.nearestUrls('canine')).toEqual(await b.nearestUrls('canine'));
  });

  it('records a size the provider changed, and embeds at that size on the next round', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgSharedEmbeddings(store.pool);
    await shared.recordDimensions('toy-concepts', 3); // as a provider answered before it changed
    const a = await replica(DOCS, shared);
    await expect(a.semantic.embedPending()).rejects.toThrow(/answered 5 dimensions, not the 3 recorded/);
    expect(await shared.dimensionsOf('toy-concepts')).toBe(5);
    expect(await a.semantic.embedPending()).toBe(DOCS.length);
    expect(await a.nearestUrls('automobile repair')).toContain('https://garage.example/fix-a-car');
  });

  it('keeps vectors of another model or size apart, and refuses a vector of the wrong size', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgSharedEmbeddings(store.pool);
    await shared.store('m', 2, [{ text: 'hello', vector: Float32Array.from([0.5, -1]) }]);
    await shared.store('m', 2, [{ text: 'hello', vector: Float32Array.from([9, 9]) }]); // the first is kept
    expect(await shared.find('m', 2, ['hello', 'other'])).toEqual([Float32Array.from([0.5, -1]), undefined]);
    expect(await shared.find('m', 3, ['hello'])).toEqual([undefined]);
    expect(await shared.find('n', 2, ['hello'])).toEqual([undefined]);
    await expect(shared.store('m', 3, [{ text: 'x', vector: Float32Array.from([1]) }])).rejects.toThrow(/1 values cannot be stored as m at 3 dimensions/); // prettier-ignore
    expect(await shared.dimensionsOf('m')).toBeUndefined();
    await shared.recordDimensions('m', 2);
    await shared.recordDimensions('m', 3);
    expect(await shared.dimensionsOf('m')).toBe(3);
  });
});

describe('semantic search without a shared store', () => {
  it('asks the provider for every chunk on every replica, as before', async () => {
    const a = await replica(DOCS);
    const b = await replica(DOCS);
    expect((await callsDuring(() => a.semantic.embedPending())).inputs).toBe(1 + chunkCount(DOCS));
    expect((await callsDuring(() => b.semantic.embedPending())).inputs).toBe(1 + chunkCount(DOCS));
    expect(await b.nearestUrls('automobile repair')).toEqual(await a.nearestUrls('automobile repair'));
  });
});
