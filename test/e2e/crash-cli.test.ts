/**
 * Crash suite, the commands: `trawl crawl` of a loopback site and `trawl import` of a large JSONL file
 * are killed with SIGKILL midway, then run again on the same data directory. The crawl resumes where it
 * stopped and every page is stored once; every imported record is present exactly once. docs/operations.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, send, type FixtureSite } from '../fixtures/site.js';
import { tempDir } from '../helpers/app.js';
import { cli, count, countSoFar, killHard, linkedArticle, run, start, until } from '../helpers/crash.js';

const PAGES = 40;
let site: FixtureSite;
let data: { dir: string; cleanup: () => void };

const article = (n: number, links: string[]) => linkedArticle(n, links, 'handbook');

beforeAll(async () => {
  site = await startFixtureSite();
  const all = Array.from({ length: PAGES }, (_, i) => `/handbook/${i + 1}`);
  site.setPage('/handbook/', article(0, all));
  for (let n = 1; n <= PAGES; n++) {
    // each page takes a moment, so the crawl is still going when it is killed
    site.setPage(`/handbook/${n}`, (_req, res) => void setTimeout(() => send(res, 200, 'text/html; charset=utf-8', article(n, [])), 60)); // prettier-ignore
  }
});
afterAll(() => site.close());
afterEach(() => data.cleanup());

describe('kill -9 and run again', () => {
  it(
    'during a crawl: the same command resumes, fetches no finished page again, and stores every page once',
    { timeout: 30_000 },
    async () => {
      // prettier-ignore
      data = tempDir('trawl-crash-');
      const args = ['crawl', `${site.url}/handbook/`, '--data-dir', data.dir, '--depth', '1', '--no-sitemaps', '--delay', '0', '--per-host', '2', '--concurrency', '2']; // prettier-ignore
      const child = start(args);
      await until(() => countSoFar(data.dir, 'documents') >= 8, 15_000, 'pages stored'); // prettier-ignore
      await killHard(child);
      const before = count(data.dir, 'documents');
      expect(before).toBeLessThan(PAGES + 1); // killed midway
      const storedBefore = new Set(Array.from({ length: PAGES }, (_, i) => i + 1).filter((n) => site.hits(`/handbook/${n}`) > 0)); // prettier-ignore

      const again = await run([...args, '--json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ resumed: true });
      expect(count(data.dir, 'documents')).toBe(PAGES + 1);
      expect(count(data.dir, 'documents', `url LIKE '${site.url}/handbook/%'`)).toBe(PAGES + 1);
      for (let n = 1; n <= PAGES; n++) {
        // a page finished before the kill is not fetched again; one in flight then may be (at-least-once)
        expect(site.hits(`/handbook/${n}`), `/handbook/${n}`).toBeLessThanOrEqual(storedBefore.has(n) ? 2 : 1);
      }
      const refetched = [...storedBefore].filter((n) => site.hits(`/handbook/${n}`) > 1);
      expect(refetched.length).toBeLessThanOrEqual(2); // at most the pages in flight (--concurrency 2)
    },
  );

  it(
    'during an import: importing the file again leaves every record present exactly once',
    { timeout: 30_000 },
    async () => {
      // prettier-ignore
      data = tempDir('trawl-crash-');
      const records = 30_000;
      const file = path.join(data.dir, 'big.jsonl');
      const lines = Array.from({ length: records }, (_, i) => JSON.stringify({ _id: i, title: `Record ${i}`, text: `Record ${i} of the big export, with a sentence of text to index.` })); // prettier-ignore
      fs.writeFileSync(file, lines.join('\n'));
      const child = start(['import', file, '--data-dir', data.dir, '--batch', '500']);
      await until(() => countSoFar(data.dir, 'documents') > 0, 15_000, 'the first batch'); // prettier-ignore
      await killHard(child);
      const partial = count(data.dir, 'documents');
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(records); // killed midway

      const again = cli(['import', file, '--data-dir', data.dir]);
      expect(again.code).toBe(0);
      expect(count(data.dir, 'documents')).toBe(records);
      expect(count(data.dir, 'documents', "url LIKE 'import://big/%'")).toBe(records);
    },
  );
});
