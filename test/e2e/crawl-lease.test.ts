/**
 * Crawls as a kind of job, with the built CLI: while one `trawl crawl` walks a crawl, a second process
 * on the same data directory is refused (`--resume` or `--restart`: exit 1, naming the crawl and saying
 * another process walks it) and changes nothing; a lease another host's process holds is respected until
 * it lapses, then `--resume` takes the crawl; a walk that ends releases its lease.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, send, type FixtureSite } from '../fixtures/site.js';
import { tempDir } from '../helpers/app.js';
import { count, countSoFar, killHard, linkedArticle, run, start, until } from '../helpers/crash.js';

const PAGES = 30;
let site: FixtureSite;
let data: { dir: string; cleanup: () => void };

const article = (n: number, links: string[]) => linkedArticle(n, links, 'guide');

beforeAll(async () => {
  site = await startFixtureSite();
  site.setPage(
    '/guide/',
    article(
      0,
      Array.from({ length: PAGES }, (_, i) => `/guide/${i + 1}`),
    ),
  );
  for (let n = 1; n <= PAGES; n++) {
    // each page takes a moment, so the first walker is still walking when the second comes
    site.setPage(`/guide/${n}`, (_req, res) => void setTimeout(() => send(res, 200, 'text/html; charset=utf-8', article(n, [])), 300)); // prettier-ignore
  }
});
afterAll(() => site.close());
afterEach(() => data.cleanup());

/** Sets the lease of the data directory's one crawl. */
function setLease(dir: string, owner: string | null, untilMs: number | null) {
  const db = new Database(path.join(dir, 'trawl.sqlite'));
  try {
    db.prepare('UPDATE crawl_jobs SET owner = ?, lease_until_ms = ?').run(owner, untilMs);
  } finally {
    db.close();
  }
}

/** The id of the data directory's one crawl. */
function crawlId(dir: string): string {
  const db = new Database(path.join(dir, 'trawl.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT id FROM crawl_jobs').pluck().get() as string;
  } finally {
    db.close();
  }
}

describe('one walker per crawl', () => {
  it(
    'refuses a second walker while the first walks, respects a live lease, takes a lapsed one',
    { timeout: 60_000 },
    async () => {
      data = tempDir('trawl-crawl-lease-');
      const args = ['crawl', `${site.url}/guide/`, '--data-dir', data.dir, '--depth', '1', '--no-sitemaps', '--delay', '0']; // prettier-ignore
      // one page at a time: the first walker is still walking while the others try
      const first = start([...args, '--concurrency', '1']);
      await until(() => countSoFar(data.dir, 'documents') >= 2, 20_000, 'pages stored by the first walker');
      const jobId = crawlId(data.dir);

      for (const flag of ['--resume', '--restart']) {
        const second = await run([...args, flag]);
        expect(second.code, second.stderr).toBe(1);
        expect(second.stderr).toContain(`Another process is walking crawl ${jobId}`);
        expect(second.stdout).toBe('');
      }
      expect(count(data.dir, 'documents')).toBeGreaterThanOrEqual(2); // --restart dropped nothing
      await killHard(first);

      // another host's process holds it: refused until its lease lapses
      setLease(data.dir, 'elsewhere.example:4242:abcd0123', Date.now() + 600_000);
      const refused = await run([...args, '--resume']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Another process is walking crawl ${jobId} (elsewhere.example:4242:abcd0123)`);
      setLease(data.dir, 'elsewhere.example:4242:abcd0123', Date.now() - 1);
      const resumed = await run([...args, '--resume', '--json', '--concurrency', '8', '--per-host', '8']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ jobId, resumed: true, status: 'finished', queued: 0 });
      expect(count(data.dir, 'documents')).toBe(PAGES + 1);
      // the walk ended: its lease is released
      expect(count(data.dir, 'crawl_jobs', 'owner IS NULL AND lease_until_ms IS NULL')).toBe(1);
    },
  );
});
