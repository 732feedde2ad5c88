/** Test helpers: a real app on a temporary data directory, and the real HTTP door on 127.0.0.1:0. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, type App, type AppOptions } from '../../src/compose/app.js';
import { loadConfig, type ConfigFlags } from '../../src/config/config.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { SCOPES } from '../../src/core/access/scopes.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist/bin/cli.js');

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'trawl-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface TestApp {
  app: App;
  dataDir: string;
  close(): Promise<void>;
}

/** A real app (SQLite and cache) on a temporary data directory, logging nothing. */
export function makeTestApp(flags: ConfigFlags = {}, options: AppOptions = {}): TestApp {
  const { dir, cleanup } = tempDir();
  // tests fire requests faster than the default 10 per second; rate tests set their own limit
  const config = loadConfig({}, { dataDir: dir, port: 0, logLevel: 'silent', rateLimitQps: 0, ...flags });
  const app = createApp(config, { logger: createLogger('silent'), ...options });
  return {
    app,
    dataDir: dir,
    async close() {
      await app.close();
      cleanup();
    },
  };
}

export interface TestServer extends TestApp {
  server: RunningServer;
  url: string;
  /** A valid API key with every scope, admin included. */
  key: string;
}

/** The real HTTP door on 127.0.0.1:0 with one API key made. */
export async function startTestServer(flags: ConfigFlags = {}, options: AppOptions = {}): Promise<TestServer> {
  const t = makeTestApp({ host: '127.0.0.1', ...flags }, options);
  const server = await startHttpServer(t.app, '127.0.0.1', 0);
  // the operator's kind of key (every scope, admin included), as the first key of a data directory is
  const key = (await t.app.services.keys.create('test', { scopes: SCOPES }, null)).key;
  return {
    ...t,
    server,
    url: server.url,
    key,
    async close() {
      await server.close();
      await t.close();
    },
  };
}

/** A JSON answer as tests read it: any field, any depth. */
type JsonBody = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A call of `method` `path` on `base` with `key` (and a JSON body when given); the status and the parsed body. */
export async function callJson(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as JsonBody) : {} };
}

/** POSTs JSON with the key; returns status, headers and parsed body. */
export async function postJson(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A team made with the operator's key `adminKey`, and a key of it with `scopes` (its value). */
export async function teamWithKey(base: string, adminKey: string, name: string, scopes: string[]): Promise<string> {
  const headers = { 'x-api-key': adminKey };
  const team = await postJson(base, '/admin/teams', { name }, headers);
  if (team.status !== 201) throw new Error(`team ${name}: ${team.status} ${JSON.stringify(team.body)}`);
  const made = await postJson(base, '/admin/keys', { name: `${name} key`, team: name, scopes }, headers);
  if (made.status !== 201) throw new Error(`key of ${name}: ${made.status} ${JSON.stringify(made.body)}`);
  return String(made.body.key);
}
