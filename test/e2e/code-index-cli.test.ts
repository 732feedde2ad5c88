/**
 * `trawl index` as a user runs it (the built CLI in a child process) on a folder on disk: first run,
 * re-index after edits and deletions (only what changed is read), /context seeing the result, and a
 * clone that cannot reach the network saying so plainly.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { CLI, tempDir } from '../helpers/app.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const dir = () => {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
};
const trawl = (args: string[]) => {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, TRAWL_DATA_DIR: '' } }); // prettier-ignore
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
};

/** The symbols /context returns for `query` from the data directory. */
async function contextSymbols(data: string, query: string): Promise<(string | null)[]> {
  const app = createApp(loadConfig({}, { dataDir: data, logLevel: 'silent' }), { logger: createLogger('silent') });
  try {
    const ctx = { requestId: 'r', logger: app.logger, signal: new AbortController().signal, caller: null, clock: app.clock, betas: new Set<string>() }; // prettier-ignore
    const out = await app.services.context.run({ query, tokensNum: 4000 }, ctx);
    return out.sources.map((s) => s.symbol);
  } finally {
    await app.close();
  }
}

/** Chunks of the data directory's code index, and those with a vector of the shipped code model (written by the CLI). */
async function vectorCounts(data: string): Promise<{ chunks: number; embedded: number }> {
  const app = createApp(loadConfig({}, { dataDir: data, logLevel: 'silent' }), { logger: createLogger('silent') });
  try {
    const embedded = app.db.prepare("SELECT COUNT(*) FROM code_embedded WHERE model LIKE 'trawl-code-%'").pluck().get() as number; // prettier-ignore
    return { chunks: app.services.code.count(), embedded };
  } finally {
    await app.close();
  }
}

describe('trawl index', () => {
  it('indexes a folder, then re-indexes only what changed; /context follows', async () => {
    const data = dir();
    const root = path.join(dir(), 'mylib');
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src', 'retry.ts'), '/** Retry a failing call with exponential backoff. */\nexport async function retryWithBackoff(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) {\n    try { return await fn(); } catch { await sleep(2 ** i * 100); }\n  }\n}\n'); // prettier-ignore
    fs.writeFileSync(path.join(root, 'src', 'old.py'), 'def legacy_frobnicate(x):\n    """Frobnicate the legacy way."""\n    return x\n'); // prettier-ignore
    fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'index.js'), 'function vendoredThing() {}\n');
    const first = trawl(['index', root, '--data-dir', data]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^mylib: 2 files \(2 added, 0 changed, 0 removed, 0 unchanged\), \d+ chunks/m);
    expect(await contextSymbols(data, 'retry with exponential backoff')).toContain('retryWithBackoff');

    // edit one file, delete another, add a third
    fs.writeFileSync(path.join(root, 'src', 'retry.ts'), '/** Retry a call, waiting longer each time. */\nexport async function retryPolitely(fn: () => Promise<void>) {\n  await fn();\n}\n'); // prettier-ignore
    fs.rmSync(path.join(root, 'src', 'old.py'));
    fs.writeFileSync(path.join(root, 'src', 'cache.go'), '// LRU evicts the least recently used entry.\nfunc (c *Cache) Evict() {\n  c.list.Remove(c.list.Back())\n}\n'); // prettier-ignore
    const second = trawl(['index', root, '--data-dir', data]);
    expect(second.stdout).toMatch(/^mylib: 2 files \(1 added, 1 changed, 1 removed, 0 unchanged\)/m);
    const counts = await vectorCounts(data); // a vector per chunk, the replaced and removed ones' gone
    expect(counts.embedded).toBe(counts.chunks);
    // with a fixed budget the code model's near chunks may fill it after the best: only chunks indexed now
    const retry = await contextSymbols(data, 'retry');
    expect(retry[0]).toBe('retryPolitely');
    for (const symbol of retry) expect(['retryPolitely', 'Cache.Evict']).toContain(symbol);
    expect(await contextSymbols(data, 'legacy frobnicate')).not.toContain('legacy_frobnicate');
    expect((await contextSymbols(data, 'evict least recently used'))[0]).toBe('Cache.Evict');

    const third = trawl(['index', root, '--data-dir', data, '--json']);
    expect(JSON.parse(third.stdout)[0]).toMatchObject({
      source: 'mylib',
      unchanged: 2,
      added: 0,
      changed: 0,
      chunks: 0,
    });
    const stats = JSON.parse(trawl(['index', 'stats', '--data-dir', data]).stdout);
    expect(stats.code.sources[0]).toMatchObject({ name: 'mylib', kind: 'folder', files: 2 });
  });

  it('imports code records (--code), located by url, path or import://, reporting bad lines', async () => {
    const data = dir();
    const file = path.join(dir(), 'snippets.jsonl');
    const doc = '"""Split one CSV row into fields."""';
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ _id: 1, code: `def parse_csv_row(line):\n    ${doc}\n    return line.split(",")`, language: 'python' }), // prettier-ignore
        JSON.stringify({ _id: 'b', code: 'export function debounce(fn, ms) {\n  let t;\n  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };\n}', path: 'utils/debounce.js' }), // prettier-ignore
        '{"_id": "c"}',
        'not json',
      ].join('\n'),
    );
    const res = trawl(['import', '--code', file, '--data-dir', data]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^imported 2, skipped 0, errors 2 from 1 input\(s\) into snippets/m);
    expect(res.stderr).toMatch(/snippets\.jsonl:3: code must be a non-empty string/);
    expect(res.stderr).toMatch(/snippets\.jsonl:4: not valid JSON/);
    expect(await vectorCounts(data)).toEqual({ chunks: 2, embedded: 2 });
    expect((await contextSymbols(data, 'split a csv row into fields'))[0]).toBe('parse_csv_row');
    expect((await contextSymbols(data, 'debounce a function'))[0]).toBe('debounce');
  });

  it('says plainly when a repository cannot be cloned, and indexes the other targets', () => {
    const data = dir();
    const root = path.join(dir(), 'local');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'a.py'), 'def alpha():\n    return 1\n');
    const res = trawl(['index', 'https://unreachable.invalid/team/repo.git', root, '--data-dir', data]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/https:\/\/unreachable\.invalid\/team\/repo\.git: .*(reach|network)/i);
    expect(res.stdout).toMatch(/^local: 1 files/m);
  });
});
