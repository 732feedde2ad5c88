/**
 * The `trawl` CLI as a user runs it (the built dist/bin/cli.js in child processes): keys, configuration
 * errors, `serve` with its first key, and several processes on one data directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, tempDir } from '../helpers/app.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { SETTINGS } from '../../src/config/config.js';
import { commandsOf } from '../../src/config/settings-doc.js';

const KEY = /^trawl_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/;

function trawl(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TRAWL_DATA_DIR: '', ...env },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

function trawlAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, TRAWL_DATA_DIR: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function dataDir(): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return dir;
}

/** Starts `trawl serve` on a free port and resolves with its URL once it logs that it listens. */
function serve(dir: string, extra: string[] = []): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dir, ...extra], {
    env: { ...process.env, TRAWL_DATA_DIR: '' },
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const url = /"url":"(http:\/\/[^"]+)"/.exec(stderr)?.[1];
      if (url) resolve({ child, url, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

const search = (url: string, key: string) =>
  fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: '{"query":"x"}',
  }).then((r) => r.status);

describe('npx trawl in the checkout', () => {
  // npx itself starts slowly on a loaded machine (npm's own start-up): a hang guard, not a speed claim
  it('runs the built CLI', { timeout: 120_000 }, () => {
    const res = spawnSync('npx', ['--offline', 'trawl', '--version'], { cwd: ROOT, encoding: 'utf8', timeout: 110_000 }); // prettier-ignore
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe(
      (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });
});

describe('trawl keys', () => {
  it('creates a key and prints only the key on stdout', () => {
    const dir = dataDir();
    const res = trawl(['keys', 'create', '--name', 'ci', '--data-dir', dir]);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toMatch(KEY);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/shown only once/);
  });

  it('lists keys without revealing them, and revokes by id', () => {
    const dir = dataDir();
    const key = trawl(['keys', 'create', '--name', 'laptop', '--data-dir', dir]).stdout.trim();
    const id = key.split('_')[1]!;
    const listed = trawl(['keys', 'list', '--data-dir', dir]);
    expect(listed.stdout).toMatch(
      new RegExp(`${id}\\s+laptop\\s+default\\s+search,contents,context,monitors,agent\\s+\\S+\\s+-\\s+active`),
    );
    expect(listed.stdout).not.toContain(key);
    const revoked = trawl(['keys', 'revoke', id], { TRAWL_DATA_DIR: dir });
    expect(revoked.code).toBe(0);
    const json = JSON.parse(trawl(['keys', 'list', '--json', '--data-dir', dir]).stdout) as { revokedAt: string }[];
    expect(json[0]!.revokedAt).toMatch(/^\d{4}-/);
    const again = trawl(['keys', 'revoke', id, '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already revoked/);
  });

  it('requires --name', () => {
    const res = trawl(['keys', 'create', '--data-dir', dataDir()]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/--name/);
  });
});

describe('configuration errors', () => {
  it('fail fast naming the flag or the variable', () => {
    const flag = trawl(['serve', '--port', 'eighty', '--data-dir', dataDir()]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/flag --port="eighty"/);
    const env = trawl(['serve', '--data-dir', dataDir()], { TRAWL_PORT: '70000' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/environment variable TRAWL_PORT="70000": must be at most 65535/);
    const level = trawl(['mcp', '--data-dir', dataDir()], { TRAWL_LOG_LEVEL: 'loud' });
    expect(level.code).toBe(2);
    expect(level.stderr).toMatch(/TRAWL_LOG_LEVEL/);
    const tools = trawl(['mcp', '--tools', 'search,nope', '--data-dir', dataDir()]);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toMatch(/TRAWL_TOOLS\/--tools: Unknown MCP tool or group name\(s\): nope\. Tools: search, get_contents/); // prettier-ignore
  });
});

describe('trawl serve', () => {
  it('creates a first key once, keeps it out of the log, and sees CLI key changes at once', async () => {
    const dir = dataDir();
    const s = await serve(dir);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    const file = path.join(dir, 'first-api-key');
    const firstKey = fs.readFileSync(file, 'utf8').trim();
    expect(firstKey).toMatch(KEY);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(s.stderr()).toContain(`cat ${file}`);
    expect(s.stderr()).not.toContain(firstKey);
    expect(await search(s.url, firstKey)).toBe(200);
    // the first key is the operator's, and its announcement says so; the keys made after it are not
    expect(s.stderr()).toMatch(/the operator's key, with every scope, admin included/);
    const status = await fetch(`${s.url}/status`, { headers: { 'x-api-key': firstKey } });
    expect(status.status).toBe(200);

    // Another process on the same data directory: a key it makes works at once, a revoke counts at once.
    const made = await trawlAsync(['keys', 'create', '--name', 'second', '--data-dir', dir]);
    const second = made.stdout.trim();
    expect(await search(s.url, second)).toBe(200);
    expect((await fetch(`${s.url}/status`, { headers: { 'x-api-key': second } })).status).toBe(403);
    await trawlAsync(['keys', 'revoke', second.split('_')[1]!, '--data-dir', dir]);
    expect(await search(s.url, second)).toBe(401);
    expect(s.stderr()).not.toContain(second);

    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));

    // A second start makes no new key and does not announce one.
    const again = await serve(dir);
    expect(again.stderr()).not.toMatch(/No API key existed/);
    again.child.kill('SIGTERM');
  });
});

describe('several processes on one data directory', () => {
  it('migrate a fresh directory and write concurrently without corruption', async () => {
    const dir = dataDir();
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => trawlAsync(['keys', 'create', '--name', `p${i}`, '--data-dir', dir])),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const keys = new Set(runs.map((r) => r.stdout.trim()));
    expect(keys.size).toBe(6);
    const db = new Database(path.join(dir, 'trawl.sqlite'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect((db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n).toBe(6);
    db.close();
  });
});

describe('every setting is a flag', () => {
  it('serve takes every setting, mcp every one but the HTTP ones', () => {
    const serveHelp = trawl(['serve', '--help']).stdout;
    const mcpHelp = trawl(['mcp', '--help']).stdout;
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(serveHelp, setting.flag).toContain(setting.flag);
      // the listener's settings (the HTTP door, OAuth) are serve's only; `trawl mcp` takes the rest
      if (commandsOf(name).includes('mcp')) expect(mcpHelp, setting.flag).toContain(setting.flag);
      else expect(mcpHelp, setting.flag).not.toMatch(new RegExp(`^\\s*${setting.flag}(?![\\w-])`, 'm'));
    }
  });
});

describe('trawl index', () => {
  it('rebuilds the search index from the stored documents', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = path.join(dir, 'notes.jsonl');
      fs.writeFileSync(
        file,
        '{"_id":"1","title":"Kestrel","text":"A small falcon that hovers."}\n{"_id":"2","title":"Owl","text":"Hunts at night."}\n',
      );
      expect(trawl(['import', file, '--data-dir', dir, '--progress', 'off']).code).toBe(0);
      const rebuilt = trawl(['index', 'rebuild', '--data-dir', dir]);
      expect(rebuilt.code).toBe(0);
      expect(rebuilt.stdout.trim()).toBe('2');
      const stats = JSON.parse(trawl(['index', 'stats', '--data-dir', dir]).stdout) as Record<string, number>;
      expect(stats).toEqual({ documents: 2, indexed: 2, tombstones: 0, code: { chunks: 0, sources: [] } });
    } finally {
      cleanup();
    }
  });
});

describe('trawl serve --workers', () => {
  it('serves from several processes on one port, the first key made once, and stops them all', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const s = await serve(dir, ['--workers', '2']);
      const key = fs.readFileSync(path.join(dir, 'first-api-key'), 'utf8').trim();
      const statuses = await Promise.all(Array.from({ length: 8 }, () => search(s.url, key)));
      expect(statuses).toEqual(new Array(8).fill(200));
      expect(s.stderr().match(/No API key existed/g)).toHaveLength(1);
      const exited = new Promise<number | null>((resolve) => s.child.once('exit', (code) => resolve(code)));
      s.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      cleanup();
    }
  });
});
