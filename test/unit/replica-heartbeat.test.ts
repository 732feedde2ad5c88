// A replica's heartbeat (core/replica/replica.ts): it beats when it starts following, again every poll
// (clamped to 1-10 s), and soon after a round that applied documents, so the status report's `behind`
// is not left a whole poll stale.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { tempDir } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { freshPgStore, pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function until<T>(read: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`nothing after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.runIf(pgReachable)('a replica’s heartbeat', () => {
  it('beats soon after it applied documents, long before its next periodic beat', async () => {
    const pg = await freshPgStore();
    cleanups.push(pg.drop);
    const dir = tempDir('trawl-heartbeat-');
    cleanups.push(dir.cleanup);
    const flags = { dataDir: dir.dir, databaseUrl: TEST_DATABASE_URL, databaseSchema: pg.schema, secretKey: randomBytes(32).toString('base64'), pollMs: '600000', logLevel: 'silent' }; // prettier-ignore
    const app = await openApp(loadConfig({}, flags), { logger: createLogger('silent') });
    cleanups.push(() => app.close());
    app.workers.startIndexing();
    const beat = () =>
      pg.pool.query<{ seen_at: Date; behind: number }>('SELECT seen_at, behind FROM replicas').then((r) => r.rows[0]);
    const first = await until(beat, 15_000);
    await app.services.documents.upsert(storedDoc('https://docs.example/one', 'One', 'a page'), new Date().toISOString()); // prettier-ignore
    const next = await until(async () => {
      const row = await beat();
      return row && row.seen_at > first.seen_at ? row : undefined;
    }, 15_000); // the periodic beat is 10 minutes away: this one came with the documents, however loaded
    expect(next.behind).toBe(0);
  });
});
