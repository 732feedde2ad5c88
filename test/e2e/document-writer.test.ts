// A serving app writes documents on its document writer's thread (compose/document-writer.ts): while a
// large batch is written, the thread that answers keeps turning (a loop on it sees the write lock held
// by the other connection) and answers /search; the batch is found by /search as soon as the write
// resolves.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { probeWriteLock } from '../helpers/write-lock-probe.js';
import { DATABASE_FILE } from '../../src/store/sqlite/database.js';

const WORDS = 'undici pooling sockets retries backoff timeouts keepalive pipelining origin dispatcher'.split(' ');
/** Letters only: the analyzer splits letters from digits. */
const marker = (i: number) => `zqbatch${[...String(i)].map((d) => 'abcdefghij'[Number(d)]).join('')}`;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('writes in a serving app', () => {
  it('do not hold the answering thread for their transaction, and are searchable once they resolve', async () => {
    await t.app.services.documents.upsert(storedDoc('https://first.example/', 'First page', 'pooling sockets'), new Date().toISOString()); // prettier-ignore
    const pages = Array.from({ length: 2500 }, (_, i) =>
      storedDoc(
        `https://batch.example/${i}`,
        `Batch page ${marker(i)}`,
        Array.from({ length: 200 }, (_, k) => WORDS[(i * 5 + k * k) % WORDS.length]).join(' '),
      ),
    );
    const written = t.app.services.documents.upsertMany(pages, new Date().toISOString());
    const probe = probeWriteLock(path.join(t.dataDir, DATABASE_FILE));
    // a request made meanwhile is answered (it reads the committed index, the first page)
    const during = callJson(t.url, t.key, 'POST', '/search', { query: 'first page', type: 'instant' });
    await written;
    const locked = probe.stop();
    const first = await during;
    expect(first.status).toBe(200);
    expect((first.body.results as { url: string }[]).map((r) => r.url)).toContain('https://first.example/');
    expect(locked).toBeGreaterThan(0);
    const res = await callJson(t.url, t.key, 'POST', '/search', {
      query: marker(2499),
      type: 'instant',
      numResults: 3,
    });
    expect(res.status).toBe(200);
    expect((res.body.results as { url: string }[]).map((r) => r.url)).toEqual(['https://batch.example/2499']);
  });
});
