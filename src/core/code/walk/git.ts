/**
 * Shallow clones through the system's `git` for `trawl index <git URL>`: the URL is checked before git
 * sees it, git runs without a shell, and its failures become messages a user can act on.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ServiceError } from '../../../errors.js';

const run = promisify(execFile);

/** How a clone runs: the git program, its time-out and abort signal (and local fixtures, in tests). */
export interface CloneOptions {
  /** The git program (default `git`, looked up on PATH). */
  git?: string;
  /** Time allowed for the whole clone (default 120 s); git is then stopped and the clone reported failed. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Tests only: also accept `file://` URLs, absolute paths and `http://` on loopback, for local fixtures. */
  allowLocal?: boolean;
}

/** A checked git URL: the host to name in messages, and the URL with any credentials taken out. */
export interface GitUrl {
  host: string;
  display: string;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;
// git@host:owner/repo.git; a colon followed by // would be a URL, handled before.
const SCP_LIKE = /^(?:([A-Za-z0-9_][\w.~-]*)@)?([^@/:]+):(?!\/\/)([^-].*)$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
// Never wait on a prompt nobody will answer: an askpass that answers nothing makes git fail at once
// instead of asking on the terminal, and ssh in batch mode never asks for a passphrase or a host key.
const NO_PROMPTS = ['-c', 'core.askPass=true', '-c', 'core.sshCommand=ssh -o BatchMode=yes'];

/**
 * Checks that `url` is an https or ssh git URL (`https://…`, `ssh://…`, or scp-like `git@host:path`)
 * that git cannot mistake for an option or a remote-helper command. Throws ServiceError `INVALID_URLS`.
 */
export function checkGitUrl(url: string, options: { allowLocal?: boolean } = {}): GitUrl {
  const bad = (why: string) =>
    new ServiceError('INVALID_URLS', `${JSON.stringify(url)} is not a git URL Trawl can clone: ${why}.`);
  if (url.startsWith('-')) throw bad('it starts with "-", which git would read as an option');
  if (/[\s\p{Cc}]/u.test(url)) throw bad('it contains spaces or control characters');
  if (/^[A-Za-z][\w+.-]*::/.test(url)) throw bad('remote-helper transports such as ext:: are not allowed');
  if (options.allowLocal && (url.startsWith('file://') || path.isAbsolute(url))) {
    return { host: 'localhost', display: url };
  }
  if (/^[A-Za-z][\w+.-]*:\/\//.test(url)) return checkUrl(url, options.allowLocal === true, bad);
  const scp = SCP_LIKE.exec(url);
  if (scp && HOST.test(scp[2]!)) return { host: scp[2]!, display: url };
  throw bad('give an https:// or ssh:// URL, or git@host:owner/repo');
}

function checkUrl(url: string, allowLocal: boolean, bad: (why: string) => ServiceError): GitUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad('it does not parse as a URL');
  }
  const local = allowLocal && u.protocol === 'http:' && LOOPBACK.has(u.hostname);
  if (u.protocol !== 'https:' && u.protocol !== 'ssh:' && !local) throw bad(`${u.protocol}// is not https or ssh`);
  if (!HOST.test(u.hostname) || u.username.startsWith('-')) throw bad('its host or user name is not valid');
  // A token in the URL must not reach messages or logs; an ssh user name is no secret.
  const user = u.protocol === 'ssh:' && u.username ? `${u.username}@` : '';
  return { host: u.hostname, display: `${u.protocol}//${user}${u.host}${u.pathname}` };
}

/**
 * Clones `url` into `dest` (which must not exist or be empty) with `git clone --depth 1 --single-branch`.
 * Throws ServiceError: `INVALID_URLS` (see `checkGitUrl`); `SERVICE_UNAVAILABLE` when git is not
 * installed; `FETCH_DOCUMENT_ERROR` when the host cannot be reached, the time runs out or git fails
 * otherwise; `NOT_FOUND` when the repository does not exist or needs credentials this machine lacks.
 * Throws the signal's reason when it aborts.
 */
export async function cloneShallow(url: string, dest: string, options: CloneOptions = {}): Promise<void> {
  const target = checkGitUrl(url, options);
  const git = options.git ?? 'git';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const args = [...NO_PROMPTS, 'clone', '--depth', '1', '--single-branch', '--', url, dest];
  try {
    await run(git, args, { timeout: timeoutMs, signal: options.signal, windowsHide: true, maxBuffer: 4 << 20 });
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw cloneError(err, target, git, timeoutMs);
  }
}

const NETWORK =
  /could not resolve (host|hostname|proxy)|name or service not known|temporary failure in name resolution|nodename nor servname|failed to connect|couldn't connect|connection (refused|timed out|reset)|network is unreachable|no route to host/i;
const AUTH =
  /authentication failed|could not read (username|password)|terminal prompts disabled|permission denied \(publickey|host key verification failed|returned error: 40[13]/i;
const MISSING = /not found|does not appear to be a git repository|returned error: 404|does not exist/i;

/** Turns a failed git run into the error a user can act on. */
function cloneError(err: unknown, target: GitUrl, git: string, timeoutMs: number): ServiceError {
  const e = err as { code?: unknown; killed?: boolean; stderr?: string };
  const { host, display } = target;
  if (e.code === 'ENOENT') {
    const msg = `Cloning ${display} needs git, and no "${git}" program was found: install git (https://git-scm.com/downloads) or index a local folder.`;
    return new ServiceError('SERVICE_UNAVAILABLE', msg, { cause: err });
  }
  if (e.killed) {
    const msg = `git clone from ${host} did not finish within ${Math.round(timeoutMs / 1000)} s: the host may be unreachable from this machine, or the repository too large for the time limit.`;
    return new ServiceError('FETCH_DOCUMENT_ERROR', msg, { cause: err });
  }
  const stderr = e.stderr ?? '';
  const said = gitSaid(stderr);
  if (NETWORK.test(stderr)) {
    const msg = `Could not reach ${host}: no network access from this machine, or the host does not exist (git: ${said}).`;
    return new ServiceError('FETCH_DOCUMENT_ERROR', msg, { cause: err });
  }
  if (AUTH.test(stderr)) {
    const msg = `${host} wants credentials to clone ${display}, and none this machine has were accepted: check the URL, or set up a git credential helper or SSH key for ${host}.`;
    return new ServiceError('NOT_FOUND', msg, { cause: err });
  }
  if (MISSING.test(stderr)) {
    const msg = `No git repository at ${display}: check the URL (a private repository can also look missing without credentials).`;
    return new ServiceError('NOT_FOUND', msg, { cause: err });
  }
  return new ServiceError('FETCH_DOCUMENT_ERROR', `git clone of ${display} failed: ${said}`, { cause: err });
}

/** git's first error line (ssh's, when ssh failed first), with any URL credentials blanked out. */
function gitSaid(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim());
  const line = lines.find((l) => /^(fatal|error|ssh):/i.test(l)) ?? lines.filter(Boolean).pop() ?? 'no message';
  return line.replace(/\/\/[^/@\s]+@/g, '//');
}

/** Whether `dir` is the top of a git work tree: a `.git` folder, or the `.git` file of a worktree or submodule. */
export async function isGitRepo(dir: string): Promise<boolean> {
  const dotGit = path.join(dir, '.git');
  try {
    if ((await fs.stat(dotGit)).isDirectory()) return (await fs.stat(path.join(dotGit, 'HEAD'))).isFile();
    return (await fs.readFile(dotGit, 'utf8')).startsWith('gitdir:');
  } catch {
    return false;
  }
}

/** A folder-safe name for the repository a URL points at: its last path segment without `.git`. */
export function repoName(url: string): string {
  const last =
    url
      .replace(/[?#].*$/, '')
      .replace(/[/\\]+$/, '')
      .split(/[/\\:]/)
      .pop() ?? '';
  const name = last
    .replace(/\.git$/i, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+/, '');
  return name || 'repo';
}
