/**
 * Pages feed the code index (issue 20): the code blocks of documentation pages that `trawl crawl`
 * fetched, or that `trawl import` read from a folder, reach `/context` with the prose before them,
 * located by the page's URL — as docs/code-context.md promises.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { CLI, postJson, startTestServer, tempDir } from '../helpers/app.js';

/** Runs the built CLI on `dataDir` and resolves with its exit code and output. */
function cli(dataDir: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args, '--data-dir', dataDir], {
      env: { ...process.env, TRAWL_DATA_DIR: '', TRAWL_PRIVATE_ALLOWLIST: '127.0.0.1', TRAWL_LOG_LEVEL: 'warn' },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** POST /context on a server over `dataDir`. */
async function context(dataDir: string, query: string) {
  const t = await startTestServer({ dataDir });
  try {
    return (await postJson(t.url, '/context', { query, tokensNum: 2000 }, { 'x-api-key': t.key })).body as {
      response: string;
      sources: { location: string; language: string }[];
    };
  } finally {
    await t.close();
  }
}

let site: FixtureSite;
const dirs: (() => void)[] = [];
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  for (const cleanup of dirs) cleanup();
});

describe('code examples of stored pages in /context', () => {
  it('come from a docs site crawled with trawl crawl, with their prose, located by the page', async () => {
    const { dir, cleanup } = tempDir();
    dirs.push(cleanup);
    const crawled = await cli(dir, ['crawl', `${site.url}/docs/getting-started`, '--depth', '1', '--delay', '0']);
    expect(crawled.code, crawled.out).toBe(0);
    const answer = await context(dir, 'create a ferrous client and run a search');
    expect(answer.response).toContain("import { createClient } from '@ferrous/cli';");
    expect(answer.response).toContain('Create a client with your API key and call search.'); // the prose before it
    expect(answer.sources[0]).toMatchObject({ location: `${site.url}/docs/getting-started`, language: 'typescript' });
  });

  it('come from HTML files imported with trawl import', async () => {
    const { dir, cleanup } = tempDir();
    dirs.push(cleanup);
    const folder = path.join(dir, 'notes');
    fs.mkdirSync(folder);
    fs.writeFileSync(
      path.join(folder, 'retries.html'),
      '<html><head><title>Retry budgets</title></head><body><main><h1>Retry budgets</h1>' +
        '<p>Wrap each call in a retry budget so that a failing dependency is not hammered.</p>' +
        '<pre><code class="language-python">budget = RetryBudget(ratio=0.1)\nresult = budget.call(fetch_page, url)</code></pre>' +
        '</main></body></html>',
    );
    const imported = await cli(dir, ['import', folder, '--collection', 'notes']);
    expect(imported.code, imported.out).toBe(0);
    const answer = await context(dir, 'python retry budget wrapping a call');
    expect(answer.response).toContain('budget = RetryBudget(ratio=0.1)');
    expect(answer.response).toContain('Wrap each call in a retry budget');
    expect(answer.sources[0]!.language).toBe('python');
  });
});
