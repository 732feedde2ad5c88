/**
 * Test helper for the crash suite: the built CLI (dist/bin/cli.js) run as a real process on a data
 * directory, killed with SIGKILL, and the leases a killed process leaves behind aged as if their time
 * had passed (so a restart recovers at once instead of a minute later).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CLI } from './app.js';
import { startModelServer, type ModelServer } from './model-server.js';

const ENV = { ...process.env, TRAWL_DATA_DIR: '', TRAWL_PRIVATE_ALLOWLIST: '127.0.0.1' };

/** A running `trawl serve`. */
export interface ServeProcess {
  url: string;
  /** The first API key, as serve wrote it to the data directory ('' when another process made it). */
  key: string;
  pid: number;
  child: ChildProcess;
  /** What it wrote to stderr so far (its log). */
  log(): string;
  /** `kill -9`, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown), resolved once the process is gone. */
  stop(): Promise<void>;
}

/** How `serve` starts the process, besides its flags. */
export interface ServeOptions {
  /** Variables added to the environment (settings, NODE_EXTRA_CA_CERTS). */
  env?: Record<string, string>;
  /** The port to listen on (default: a free one). */
  port?: number;
  logLevel?: string;
}

/** Starts `trawl serve` on 127.0.0.1 and resolves once it listens; its stderr is kept (`log`). */
export async function serve(dataDir: string, args: string[] = [], options: ServeOptions = {}): Promise<ServeProcess> {
  const flags = ['--data-dir', dataDir, '--host', '127.0.0.1', '--port', String(options.port ?? 0), '--log-level', options.logLevel ?? 'info']; // prettier-ignore
  const child = spawn(process.execPath, [CLI, 'serve', ...flags, ...args], { env: { ...ENV, ...options.env } });
  let log = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${log}`)), 60_000); // a loaded machine (2 shared cores) can take 20 s
    const listening = () => {
      const found = /listening on (http:\/\/[\d.:]+)/.exec(log);
      if (!found) return;
      clearTimeout(timer);
      child.stderr.off('data', listening);
      resolve(found[1]!);
    };
    child.stderr.on('data', listening);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${log}`)));
  });
  const keyFile = path.join(dataDir, 'first-api-key');
  const key = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8').trim() : '';
  return {
    url,
    key,
    pid: child.pid!,
    child,
    log: () => log,
    kill: () => killHard(child),
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      return gone;
    },
  };
}

/** SIGKILL: no shutdown code runs, as when the machine or the OOM killer stops a process. */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

/** Runs a CLI command to its end, without blocking this process (its loopback servers keep answering). */
export function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...ENV, TRAWL_LOG_LEVEL: 'warn' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Runs a CLI command to its end (blocking: only for commands that reach no loopback server of the test). */
export function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: ENV, timeout: 25_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Starts a CLI command in the background (to be killed). */
export function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...ENV, TRAWL_LOG_LEVEL: 'warn' } });
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

/** Ages the leases a killed process held (agent runs, monitor runs, deliveries), as a minute's wait would. */
export function ageLeases(dataDir: string): void {
  const db = new Database(path.join(dataDir, 'trawl.sqlite'));
  try {
    db.prepare("UPDATE agent_runs SET lease_until_ms = 1 WHERE status = 'running'").run();
    db.prepare("UPDATE monitor_runs SET lease_until_ms = 1 WHERE status IN ('pending', 'running')").run();
    db.prepare("UPDATE webhook_deliveries SET lease_until_ms = 1 WHERE status = 'pending' AND lease_until_ms IS NOT NULL").run(); // prettier-ignore
  } finally {
    db.close();
  }
}

/** Rows of a table while a process may still be creating the database: 0 until the table exists. */
export function countSoFar(dataDir: string, table: string): number {
  if (!fs.existsSync(path.join(dataDir, 'trawl.sqlite'))) return 0;
  try {
    return count(dataDir, table);
  } catch {
    return 0; // the database is still being created or migrated
  }
}

/** Rows of a table on the data directory matching `where`. */
export function count(dataDir: string, table: string, where = '1'): number {
  const db = new Database(path.join(dataDir, 'trawl.sqlite'), { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Polls `test` every 50 ms until it returns a value (not undefined/false), or throws after `ms`. */
export async function until<T>(
  test: () => T | Promise<T>,
  ms = 10_000,
  what = 'a condition',
): Promise<Exclude<T, false | undefined>> {
  // prettier-ignore
  const end = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A page of a crawled fixture site: page `n` of the `topic`, long enough to be kept as main content, linking `links`. */
export function linkedArticle(n: number, links: string[], topic: string): string {
  return (
    `<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
    `<p>Page ${n} explains one part of the ${topic} in enough words for the extractor to keep it as the main content of the page.</p>` + // prettier-ignore
    `<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`
  );
}

/** Whether a model request is an agent run's plan (its first call). */
export const isPlan = (body: unknown) => /"queries"/.test(JSON.stringify(body));

/** Two pages an agent run's search finds (imported with `importRunDocs`). */
export const RUN_DOCS = [
  { url: 'https://docs.example.com/undici/pool', title: 'Connection pooling in undici', text: 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.' }, // prettier-ignore
  { url: 'https://docs.example.com/undici/agent', title: 'The undici Agent', text: 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections.' }, // prettier-ignore
];

/** `trawl import` of RUN_DOCS into `dataDir` (exit code 0, or throws). */
export function importRunDocs(dataDir: string): void {
  const file = path.join(dataDir, 'docs.jsonl');
  fs.writeFileSync(file, RUN_DOCS.map((d) => JSON.stringify(d)).join('\n'));
  const imported = cli(['import', file, '--data-dir', dataDir]);
  if (imported.code !== 0) throw new Error(`trawl import exited ${imported.code}: ${imported.stderr}`);
}

/**
 * A model for runs that are under way when their process goes: it plans at once, and while `held` takes
 * 30 s to answer anything else, so a run (agent or monitor) holds its lease; `held = false` lets the
 * next process finish it.
 */
export async function startHoldingModel(): Promise<{ model: ModelServer; hold(held: boolean): void }> {
  let held = true;
  const model = await startModelServer({
    reply: (body) => {
      if (isPlan(body)) return { json: { queries: ['undici Agent per origin pools'] } };
      return held ? { delayMs: 30_000, content: 'too late' } : 'An undici Pool keeps sockets open to one origin [1].';
    },
  });
  return { model, hold: (value) => void (held = value) };
}
