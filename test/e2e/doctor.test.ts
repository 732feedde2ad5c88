/**
 * `trawl doctor` (the built CLI) and `GET /status` (the real HTTP door) against loopback stand-ins: a
 * model server that answers, SearXNG's `/config`, an OpenAI-style API that refuses its key, a port where
 * nothing listens. Checked: what each reports, the exit code, that nothing is created, that no secret shows.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { FIRST_KEY_FILE } from '../../src/cli/serve.command.js';
import { loadConfig } from '../../src/config/config.js';
import type { StatusReport } from '../../src/core/status/status.service.js';
import { createLogger } from '../../src/lib/logger.js';
import { StatusReport as StatusReportSchema } from '../../src/schemas/status.schema.js';
import { CLI, startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startExternalIssuer } from '../helpers/external-issuer.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { freshPgStore, pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { VERSION } from '../../src/version.js';
import { closedPort } from '../helpers/ports.js';

const SECRETS = {
  model: 'sk-model-secret-1234',
  searxngPassword: 'searx-pass-7788',
  searxngToken: 'tok-secret-8899',
  brave: 'brave-secret-9911',
  upstream: 'up-secret-5566',
  embeddings: 'emb-wrong-key-6677',
};

interface StandIn {
  base: string;
  seen: { path: string; authorization?: string }[];
  close(): Promise<void>;
}

/** SearXNG's `GET /config`, and an OpenAI-style `GET /v1/models` that refuses any key but `right-key` (echoing it). */
async function startStandIn(): Promise<StandIn> {
  const seen: StandIn['seen'] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization;
    seen.push({ path: req.url ?? '', authorization });
    if (req.url === '/searxng/config') {
      const engines = [{ name: 'duckduckgo', enabled: true }, { name: 'google', enabled: false }, { name: 'wikipedia', enabled: true }]; // prettier-ignore
      return json(res, 200, { version: '2025.5.1', instance_name: 'SearXNG', engines, categories: ['general'] });
    }
    if (req.url === '/keyed/v1/models') {
      if (authorization === 'Bearer right-key') return json(res, 200, { object: 'list', data: [{ id: 'embed-1' }] });
      return json(res, 401, { error: { message: `Incorrect API key provided: ${authorization?.slice(7) ?? ''}` } });
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI with only PATH and a scratch HOME from the environment (no TRAWL_* leaks in). */
function trawl(args: string[], home: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: home } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const secretsIn = (text: string) => Object.values(SECRETS).filter((s) => text.includes(s));

let model: ModelServer;
let standIn: StandIn;
let nowhere: number;
const cleanups: (() => void)[] = [];
const scratch = () => {
  const { dir, cleanup } = tempDir('trawl-doctor-');
  cleanups.push(cleanup);
  return dir;
};

beforeAll(async () => {
  [model, standIn, nowhere] = await Promise.all([startModelServer(), startStandIn(), closedPort()]);
});
afterAll(async () => {
  await Promise.all([model.close(), standIn.close()]);
  for (const cleanup of cleanups) cleanup();
});

describe.skipIf(!pgReachable)('trawl doctor with a PostgreSQL store', () => {
  it('shows the server, its version and the schema’s migration, counts the shared store, migrates nothing', async () => {
    const pg = await freshPgStore();
    try {
      await pg.pool.query(`INSERT INTO api_keys (id, name, hash, created_at) VALUES ('k1', 'one', 'h', '2026-01-01')`);
      const args = ['doctor', '--data-dir', scratch(), '--port', String(nowhere), '--json', '--database-url', TEST_DATABASE_URL]; // prettier-ignore
      const run = await trawl([...args, '--database-schema', pg.schema], scratch());
      const report = JSON.parse(run.stdout) as StatusReport;
      expect(report.store).toMatchObject({ backend: 'postgres', schema: pg.schema, schemaVersion: PG_MIGRATIONS.at(-1)!.version, replicas: [] }); // prettier-ignore
      expect(report.store.version).toMatch(/^\d+/);
      expect(report.keys.active).toBe(1);
      expect(StatusReportSchema.safeParse(report).success).toBe(true);
      // a schema Trawl never started on: a note, and nothing created in it
      const empty = `doctor_${process.pid}_${Date.now().toString(36)}`;
      const fresh = JSON.parse((await trawl([...args, '--database-schema', empty], scratch())).stdout) as StatusReport;
      expect(fresh.store).toMatchObject({ schemaVersion: 0 });
      expect(fresh.nextSteps.some((s) => s.message.includes('holds no Trawl tables yet'))).toBe(true);
      const made = await pg.pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [empty]);
      expect(made.rowCount).toBe(0);
    } finally {
      await pg.drop();
    }
  });

  it('an unreachable server is broken (exit 1), named without its password', async () => {
    const url = `postgres://trawl:pg-secret-4242@127.0.0.1:${nowhere}/trawl`;
    const run = await trawl(['doctor', '--data-dir', scratch(), '--port', String(nowhere), '--database-url', url], scratch()); // prettier-ignore
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/Store\s+PostgreSQL \(unreachable\) at postgres:\/\/127\.0\.0\.1:\d+\/trawl/);
    expect(run.stdout).toMatch(/BROKEN PostgreSQL at/);
    expect(run.stdout + run.stderr).not.toContain('pg-secret-4242');
  });
});

describe('trawl doctor', () => {
  it('on an empty data directory: notes what is missing with the commands that add it, exit 0, creates nothing', async () => {
    const dir = scratch();
    const run = await trawl(['doctor', '--data-dir', dir, '--port', String(nowhere)], scratch());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/nothing configured is broken/);
    for (const fix of ['trawl crawl URL', 'trawl import FILE', 'trawl index PATH', '--searxng-url URL', '--model-base-url URL', 'trawl keys create', 'trawl serve']) {
      expect(run.stdout, fix).toContain(fix);
    } // prettier-ignore
    expect(run.stdout).not.toMatch(/BROKEN/);
    // the Node line it runs on, with its end-of-life date
    expect(run.stdout).toMatch(
      new RegExp(`^Node\\.js\\s+${process.version.replace(/\./g, '\\.')}: .*\\d{4}-\\d\\d-\\d\\d`, 'm'),
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('--json: the same report as data, every part off and the listener silent', async () => {
    const dir = scratch();
    const run = await trawl(['doctor', '--json', '--data-dir', dir, '--port', String(nowhere)], scratch());
    expect(run.code, run.stderr).toBe(0);
    const report = StatusReportSchema.parse(JSON.parse(run.stdout)) as StatusReport;
    expect(report.ok).toBe(true);
    expect(report.dataDir).toMatchObject({ path: dir, exists: true, writable: true, database: false });
    expect(report.index).toMatchObject({ documents: 0, searchable: 0, code: { chunks: 0, files: 0, sources: 0 } });
    expect([...report.providers.webSearch, report.providers.model, report.providers.embeddings].map((c) => c.state)).toEqual(['off', 'off', 'off', 'off', 'off']); // prettier-ignore
    expect(report.listener).toMatchObject({ state: 'off', port: nowhere, url: `http://127.0.0.1:${nowhere}` });
    expect(report.listener.detail).toMatch(/connection refused/);
    expect(report.nextSteps.map((s) => s.level)).not.toContain('broken');
    expect(report.signIn.map((c) => [c.name, c.state])).toEqual([['server', 'off'], ['issuer', 'off'], ['oidc', 'off']]); // prettier-ignore
    expect(report.runtime).toMatchObject({ node: process.version, supported: true });
    expect(report.nextSteps.find((s) => /index is empty/.test(s.message))?.fix).toMatch(
      /trawl crawl URL.*trawl import FILE/,
    );
  });

  it('checks sign-in: the own authorization server named by its public URL, an external issuer by its metadata', async () => {
    const issuer = await startExternalIssuer([]);
    try {
      const on = ['doctor', '--json', '--data-dir', scratch(), '--port', String(nowhere), '--oauth', 'on'];
      const [named, external, unnamed, silent] = await Promise.all([
        trawl([...on, '--public-url', 'https://trawl.example.com'], scratch()),
        trawl(['doctor', '--json', '--data-dir', scratch(), '--port', String(nowhere), '--auth-issuer', issuer.issuer], scratch()), // prettier-ignore
        trawl([...on, '--host', '0.0.0.0'], scratch()),
        trawl(['doctor', '--data-dir', scratch(), '--port', String(nowhere), '--auth-issuer', `http://127.0.0.1:${nowhere}/realms/acme`], scratch()), // prettier-ignore
      ]);
      expect(named.code, named.stderr).toBe(0);
      const own = (JSON.parse(named.stdout) as StatusReport).signIn;
      expect(own[0]).toMatchObject({ name: 'server', state: 'ok', url: 'https://trawl.example.com/oauth' });
      expect(own[0]!.detail).toMatch(/Client ID Metadata Documents \(registration off\)/);

      expect(external.code, external.stderr).toBe(0);
      const ext = (JSON.parse(external.stdout) as StatusReport).signIn;
      expect(ext[0]).toMatchObject({ name: 'server', state: 'off' });
      expect(ext[1]).toMatchObject({ name: 'issuer', state: 'ok', url: expect.stringContaining(issuer.issuer) });
      expect(ext[1]!.detail).toMatch(/its keys at http:\/\/127\.0\.0\.1:\d+/);

      expect(unnamed.code).toBe(1);
      const broken = JSON.parse(unnamed.stdout) as StatusReport;
      expect(broken.signIn[0]).toMatchObject({ name: 'server', state: 'failed' });
      expect(broken.nextSteps[0]).toMatchObject({ level: 'broken' });
      expect(broken.nextSteps[0]!.fix).toContain('TRAWL_PUBLIC_URL');

      expect(silent.code).toBe(1);
      expect(silent.stdout).toMatch(/Sign-in\s+server\s+off/);
      expect(silent.stdout).toMatch(/issuer\s+FAILED\s+http:\/\/127\.0\.0\.1:\d+\/realms\/acme: no usable metadata/);
      expect(silent.stdout).toContain('TRAWL_AUTH_ISSUER');
    } finally {
      await issuer.close();
    }
  });

  it('a model that answers is ok; a SearXNG that does not is broken (exit 1); no secret is printed', async () => {
    const dir = scratch();
    const searxng = `http://admin:${SECRETS.searxngPassword}@127.0.0.1:${nowhere}/?token=${SECRETS.searxngToken}&lang=en`;
    // prettier-ignore
    const args = ['doctor', '--data-dir', dir, '--port', String(nowhere), '--model-base-url', model.baseUrl, '--model', 'test-model',
      '--model-api-key', SECRETS.model, '--searxng-url', searxng, '--brave-api-key', SECRETS.brave];
    const [human, json] = await Promise.all([trawl(args, scratch()), trawl([...args, '--json'], scratch())]);
    expect(human.code).toBe(1);
    expect(json.code).toBe(1);
    expect(human.stdout).toMatch(/something configured is broken/);
    expect(human.stdout).toMatch(/BROKEN SearXNG at http:\/\/127\.0\.0\.1:\d+\/\?lang=en: does not answer/);
    const report = JSON.parse(json.stdout) as StatusReport;
    expect(report.ok).toBe(false);
    expect(report.providers.model).toMatchObject({ state: 'ok', model: 'test-model', url: model.baseUrl });
    expect(report.providers.model.detail).toMatch(/test-model is among its 1 models/);
    const [sx, brave, upstream] = report.providers.webSearch;
    expect(sx).toMatchObject({ name: 'searxng', state: 'failed', url: `http://127.0.0.1:${nowhere}/?lang=en` });
    expect(brave).toMatchObject({ name: 'brave', configured: true, state: 'skipped' });
    expect(brave!.detail).toMatch(/billed/);
    expect(upstream).toMatchObject({ name: 'upstream', state: 'off' });
    expect(report.nextSteps[0]).toMatchObject({ level: 'broken' });
    expect(report.nextSteps[0]!.fix).toContain('--searxng-url');
    expect(secretsIn(human.stdout + human.stderr + json.stdout + json.stderr)).toEqual([]);
  });

  it('a model API that does not list the configured model is unverified, a note (exit 0)', async () => {
    const run = await trawl(['doctor', '--json', '--data-dir', scratch(), '--port', String(nowhere), '--model-base-url', model.baseUrl, '--model', 'other-model'], scratch()); // prettier-ignore
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as StatusReport;
    expect(report.providers.model).toMatchObject({ state: 'unverified' });
    expect(report.providers.model.detail).toMatch(/does not list other-model \(it lists 1: test-model\)/);
    expect(report.nextSteps.find((s) => s.message.startsWith('The model API'))?.fix).toMatch(/--model NAME/);
  });

  it('a data directory that cannot be written is broken', async () => {
    const file = path.join(scratch(), 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const run = await trawl(['doctor', '--json', '--data-dir', path.join(file, 'data'), '--port', String(nowhere)], scratch()); // prettier-ignore
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as StatusReport;
    expect(report.dataDir).toMatchObject({ exists: false, writable: false });
    expect(report.dataDir.problem).toMatch(/is a file, not a directory/);
    expect(report.nextSteps[0]).toMatchObject({ level: 'broken' });
    expect(report.nextSteps[0]!.fix).toMatch(/--data-dir DIR/);
  });

  it('counts what the store holds and the keys, names the first-key file (never the key), and finds a running Trawl', async () => {
    const dir = scratch();
    const app = createApp(loadConfig({}, { dataDir: dir, logLevel: 'silent' }), { logger: createLogger('silent') });
    const now = new Date().toISOString();
    await app.services.documents.upsertMany([
      storedDoc('https://docs.example.com/a', 'A', 'Alpha page about pools.'),
      storedDoc('import://notes/1', 'Note', 'A note.', { origin: 'import', collection: 'notes' }),
      storedDoc('import://notes/2', 'Note two', 'Another note.', { origin: 'import', collection: 'notes' }),
    ], now); // prettier-ignore
    const { key } = await app.services.keys.create('first', {}, null);
    await app.services.keys.revoke((await app.services.keys.create('old', {}, null)).id, null);
    fs.writeFileSync(path.join(dir, FIRST_KEY_FILE), `${key}\n`, { mode: 0o600 }); // as trawl serve writes it
    await app.close();
    const server = await startTestServer({ dataDir: dir });
    try {
      const run = await trawl(['doctor', '--json', '--data-dir', dir, '--port', String(server.server.port)], scratch());
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as StatusReport;
      expect(report.index).toMatchObject({ documents: 3, searchable: 3, collectionCount: 2 });
      expect(report.index.collections).toEqual([
        { name: 'notes', documents: 2 },
        { name: null, documents: 1 },
      ]);
      expect(report.dataDir.database).toBe(true);
      expect(report.dataDir.bytes).toBeGreaterThan(0);
      // the test server made its own admin key `test` in the same directory
      expect(report.keys).toMatchObject({ active: 2, revoked: 1, firstKeyFile: path.join(dir, 'first-api-key') });
      expect(report.keys.admins.map((a) => a.name)).toEqual(['test']);
      expect(report.listener).toMatchObject({ state: 'ok' });
      expect(report.listener.detail).toMatch(/a Trawl \S+ answers/);
      expect(run.stdout).not.toContain(key);
      expect(report.nextSteps.map((s) => s.message).join('\n')).not.toMatch(/index is empty|No API key/);
    } finally {
      await server.close();
    }
  });

  it('says when the listener serves another data directory, and names the default one when it is that', async () => {
    const home = scratch();
    const defaultDir = path.join(home, '.local', 'share', 'trawl'); // env-paths' data directory on Linux
    const elsewhere = scratch();
    const server = await startTestServer({ dataDir: defaultDir });
    try {
      const port = String(server.server.port);
      const run = await trawl(['doctor', '--json', '--data-dir', elsewhere, '--port', port], home);
      expect(run.code, run.stderr).toBe(0); // a note, not a broken part
      const report = JSON.parse(run.stdout) as StatusReport;
      expect(report.listener).toMatchObject({ state: 'unverified', otherStore: true });
      expect(report.listener.detail).toBe(
        `a Trawl ${VERSION} answers, but it serves the default data directory ${defaultDir}, not the data directory ${elsewhere}`,
      );
      const step = report.nextSteps.find((s) => s.message.includes(report.listener.url!));
      expect(step?.fix).toMatch(/--data-dir/);
      // the same directory as the server's: the listener is simply ok
      const same = JSON.parse((await trawl(['doctor', '--json', '--port', port], home)).stdout) as StatusReport;
      expect(same.listener).toMatchObject({ state: 'ok' });
      expect(same.listener.otherStore).toBeUndefined();
      // a directory that is neither: not named, but said
      const other = await startTestServer({ dataDir: scratch() });
      try {
        const run2 = await trawl(['doctor', '--json', '--data-dir', elsewhere, '--port', String(other.server.port)], home); // prettier-ignore
        const text = (JSON.parse(run2.stdout) as StatusReport).listener.detail;
        expect(text).toMatch(/serves another data directory or database, not the data directory /);
        expect(text).not.toContain(other.dataDir);
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  });
});

describe('GET /status', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      modelBaseUrl: model.baseUrl,
      model: 'test-model',
      modelApiKey: SECRETS.model,
      searxngUrl: `http://admin:${SECRETS.searxngPassword}@${standIn.base.slice(7)}/searxng?token=${SECRETS.searxngToken}`,
      braveApiKey: SECRETS.brave,
      upstreamUrl: `http://127.0.0.1:${nowhere}`,
      upstreamApiKey: SECRETS.upstream,
      embeddingsUrl: `${standIn.base}/keyed/v1`,
      embeddingsApiKey: SECRETS.embeddings,
    });
  });
  afterAll(async () => {
    await t.close();
  });
  const get = (headers: Record<string, string> = {}) => fetch(`${t.url}/status`, { headers });

  it('answers an admin key with the report: each provider checked, broken ones named, no secrets', async () => {
    const res = await get({ 'x-api-key': t.key });
    const text = await res.text();
    expect(res.status).toBe(200);
    const report = StatusReportSchema.parse(JSON.parse(text));
    expect(report.ok).toBe(false);
    const [sx, brave, upstream] = report.providers.webSearch;
    expect(sx).toMatchObject({ state: 'ok', url: `${standIn.base}/searxng` });
    expect(sx!.detail).toMatch(/SearXNG 2025\.5\.1 answers, 2 engines enabled/);
    const basic = Buffer.from(`admin:${SECRETS.searxngPassword}`).toString('base64');
    expect(standIn.seen).toContainEqual({ path: '/searxng/config', authorization: `Basic ${basic}` });
    expect(brave).toMatchObject({ state: 'skipped' });
    expect(upstream).toMatchObject({ state: 'failed' });
    expect(report.providers.model).toMatchObject({ state: 'ok' });
    expect(report.providers.embeddings).toMatchObject({ state: 'failed', url: `${standIn.base}/keyed/v1` });
    expect(report.providers.embeddings.detail).toMatch(/refused the API key \(HTTP 401\).*\[redacted\]/);
    expect(report.nextSteps.filter((s) => s.level === 'broken').map((s) => s.message)).toEqual([
      expect.stringMatching(/^The upstream service at/),
      expect.stringMatching(/^The embeddings API at/),
    ]);
    expect(secretsIn(text)).toEqual([]);
    expect(text).not.toContain(t.key);
  });

  it('refuses a request without a key (401) and a key without the admin scope (403)', async () => {
    const none = await get();
    expect(none.status).toBe(401);
    const searchOnly = (await t.app.services.keys.create('search-only', { scopes: ['search'] }, null)).key;
    const refused = await get({ 'x-api-key': searchOnly });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { tag: string }).tag).toBe('INSUFFICIENT_SCOPE');
  });

  it('leaves /health cheap: no key, no checks, its version and which store it serves (a hash, not the path)', async () => {
    const before = standIn.seen.length;
    const res = await fetch(`${t.url}/health`);
    expect(await res.json()).toEqual({
      status: 'ok',
      version: expect.any(String),
      store: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(standIn.seen.length).toBe(before);
  });
});
