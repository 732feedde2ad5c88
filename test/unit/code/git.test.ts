/**
 * Shallow clones with the system git, without the internet: a local bare repository, a loopback HTTP
 * server that answers 401 and 404, and the `.invalid` TLD, which never resolves.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGitUrl, cloneShallow, isGitRepo, repoName } from '../../../src/core/code/walk/git.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-git-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const hasGit = spawnSync('git', ['--version']).status === 0;
const posix = process.platform !== 'win32';

describe('checkGitUrl', () => {
  it('accepts https, ssh and scp-like URLs and keeps tokens out of the display form', () => {
    expect(checkGitUrl('https://github.com/owner/repo.git')).toEqual({
      host: 'github.com',
      display: 'https://github.com/owner/repo.git',
    });
    expect(checkGitUrl('https://x-token:s3cret@github.com/o/r.git').display).toBe('https://github.com/o/r.git');
    expect(checkGitUrl('ssh://git@example.org:2222/o/r.git').display).toBe('ssh://git@example.org:2222/o/r.git');
    expect(checkGitUrl('git@github.com:owner/repo.git')).toEqual({
      host: 'github.com',
      display: 'git@github.com:owner/repo.git',
    });
  });

  it.each([
    ['--upload-pack=touch /tmp/x', /option/],
    ['-oProxyCommand=x', /option/],
    ['file:///etc/passwd', /not https or ssh/],
    ['/srv/repo.git', /git@host/],
    ['http://example.com/r.git', /not https or ssh/],
    ['git://example.com/r.git', /not https or ssh/],
    ['ext::sh%20-c%20touch%20x', /remote-helper/],
    ['ssh://-oProxyCommand=x/r.git', /host or user/],
    ['git@host:-oFoo', /git@host/],
    ['https://exa mple.com/r.git', /spaces/],
  ])('rejects %s', (url, why) => {
    expect(() => checkGitUrl(url)).toThrow(why);
    expect(() => checkGitUrl(url)).toThrow(expect.objectContaining({ tag: 'INVALID_URLS' }));
  });

  it('accepts local URLs only when asked, as tests do', () => {
    expect(checkGitUrl('file:///srv/r.git', { allowLocal: true }).host).toBe('localhost');
    expect(checkGitUrl('http://127.0.0.1:9/r.git', { allowLocal: true }).host).toBe('127.0.0.1');
    expect(() => checkGitUrl('http://example.com/r.git', { allowLocal: true })).toThrow(/not https or ssh/);
  });
});

describe('repoName and isGitRepo', () => {
  it('names a repository by its last path segment', () => {
    expect(repoName('https://github.com/owner/repo.git')).toBe('repo');
    expect(repoName('https://gitlab.com/group/sub/project/')).toBe('project');
    expect(repoName('git@github.com:owner/my.lib.git')).toBe('my.lib');
    expect(repoName('git@host:solo.git')).toBe('solo');
    expect(repoName('https://host/weird%20name?x=1')).toBe('weird-20name');
    expect(repoName('https://host/')).toBe('host');
    expect(repoName('https://host/.git')).toBe('repo');
  });

  it('tells a work tree top from a plain folder', async () => {
    const top = path.join(tmp, 'tops');
    fs.mkdirSync(path.join(top, 'repo/.git'), { recursive: true });
    fs.writeFileSync(path.join(top, 'repo/.git/HEAD'), 'ref: refs/heads/main\n');
    fs.mkdirSync(path.join(top, 'worktree'));
    fs.writeFileSync(path.join(top, 'worktree/.git'), 'gitdir: /elsewhere/.git/worktrees/w\n');
    fs.mkdirSync(path.join(top, 'plain'));
    expect(await isGitRepo(path.join(top, 'repo'))).toBe(true);
    expect(await isGitRepo(path.join(top, 'worktree'))).toBe(true);
    expect(await isGitRepo(path.join(top, 'plain'))).toBe(false);
    expect(await isGitRepo(path.join(top, 'missing'))).toBe(false);
  });
});

describe('cloneShallow without git', () => {
  it('says git is needed when the program is missing', async () => {
    const git = path.join(tmp, 'no-such-git');
    await expect(cloneShallow('https://github.com/o/r.git', path.join(tmp, 'x'), { git })).rejects.toMatchObject({
      tag: 'SERVICE_UNAVAILABLE',
      message: expect.stringMatching(/needs git/),
    });
  });

  it.skipIf(!posix)('stops a clone that runs out of time, or whose signal aborts', async () => {
    const git = path.join(tmp, 'slow-git.sh');
    // sleeps past the test's own time-out (20 s): only the deadline and the abort can end these clones
    fs.writeFileSync(git, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    const url = 'https://example.org/o/r.git';
    await expect(cloneShallow(url, path.join(tmp, 'slow'), { git, timeoutMs: 200 })).rejects.toMatchObject({
      tag: 'FETCH_DOCUMENT_ERROR',
      message: expect.stringMatching(/did not finish within/),
    });
    const controller = new AbortController();
    const clone = cloneShallow(url, path.join(tmp, 'slow'), { git, signal: controller.signal });
    controller.abort();
    await expect(clone).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe.skipIf(!hasGit)('cloneShallow with the system git (skipped when `git --version` fails)', () => {
  const remote = path.join(tmp, 'remote.git');
  let server: http.Server;
  let base = '';

  beforeAll(async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: tmp, stdio: 'pipe' });
    const id = ['-c', 'user.name=Trawl Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false'];
    git('-c', 'init.defaultBranch=main', 'init', '-q', '--bare', remote);
    git('-c', 'init.defaultBranch=main', 'init', '-q', 'work');
    for (const [n, text] of ['one', 'two'].entries()) {
      fs.writeFileSync(path.join(tmp, 'work', 'README.md'), `# ${text}\n`);
      git('-C', 'work', 'add', 'README.md');
      git('-C', 'work', ...id, 'commit', '-q', '-m', `commit ${n}`);
    }
    git('-C', 'work', 'push', '-q', remote, 'HEAD:refs/heads/main');
    // Loopback stand-in for a forge: /private asks for credentials, everything else is missing.
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/private/')) res.writeHead(401, { 'www-authenticate': 'Basic realm="forge"' });
      else res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('clones one commit deep and leaves a work tree', async () => {
    const dest = path.join(tmp, 'clone');
    await cloneShallow(`file://${remote}`, dest, { allowLocal: true });
    expect(fs.readFileSync(path.join(dest, 'README.md'), 'utf8')).toBe('# two\n');
    expect(execFileSync('git', ['-C', dest, 'rev-list', '--count', 'HEAD']).toString().trim()).toBe('1');
    expect(await isGitRepo(dest)).toBe(true);
  });

  it('refuses a local URL unless tests allow it', async () => {
    await expect(cloneShallow(`file://${remote}`, path.join(tmp, 'nope'))).rejects.toMatchObject({
      tag: 'INVALID_URLS',
    });
  });

  it('says when there is no repository at the URL', async () => {
    const missing = cloneShallow(`file://${tmp}/none.git`, path.join(tmp, 'c1'), { allowLocal: true });
    await expect(missing).rejects.toMatchObject({ tag: 'NOT_FOUND', message: expect.stringMatching(/No git repo/) });
    const http404 = cloneShallow(`${base}/missing/r.git`, path.join(tmp, 'c2'), { allowLocal: true });
    await expect(http404).rejects.toMatchObject({ tag: 'NOT_FOUND', message: expect.stringMatching(/No git repo/) });
  });

  it('says when the server wants credentials, without waiting on a prompt', async () => {
    const clone = cloneShallow(`${base}/private/r.git`, path.join(tmp, 'c3'), { allowLocal: true, timeoutMs: 5000 });
    await expect(clone).rejects.toMatchObject({
      tag: 'NOT_FOUND',
      message: expect.stringMatching(/127\.0\.0\.1 wants credentials/),
    });
  });

  it('says plainly when the host cannot be reached', async () => {
    const clone = cloneShallow('https://unreachable.invalid/repo.git', path.join(tmp, 'c4'), { timeoutMs: 10_000 });
    await expect(clone).rejects.toMatchObject({
      tag: 'FETCH_DOCUMENT_ERROR',
      message: expect.stringMatching(/^Could not reach unreachable\.invalid: no network access from this machine/),
    });
    expect(fs.existsSync(path.join(tmp, 'c4'))).toBe(false);
  });
});
