/**
 * /context with Trawl's code model, through the real REST door, the status report and the MCP SDK's real
 * Client: every indexed chunk gets a vector of the loaded version in the write's transaction; the model
 * answers a question none of the answer's words match; a missing model file leaves /context lexical and
 * says so (log, doctor, MCP notification); a second model re-embeds in the background and drops the
 * first's vectors, and a query only ever reads the loaded version's table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { ChunkRecord } from '../../src/core/code/index/code-index.js';
import type { StoredPage } from '../../src/core/documents/documents.types.js';
import { serializeCodeModel } from '../../src/core/code/model/code-model.js';
import { offlineReport } from '../../src/compose/offline-report.js';
import { WARNINGS } from '../../src/core/warnings.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { vectorTable } from '../../src/store/sqlite/vectors.js';
import { captureLogs } from '../helpers/log-capture.js';
import { postJson, startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';

const py = (path: string, symbol: string, code: string): ChunkRecord => ({ source: 'lib', path, startLine: 1, endLine: code.split('\n').length, language: 'python', kind: 'function', symbol, doc: null, code }); // prettier-ignore

const CHUNKS: ChunkRecord[] = [
  py('a.py', 'stamp', 'def stamp():\n    return datetime.datetime.utcnow()'),
  py('b.py', 'current_user', 'def current_user(request):\n    return request.session.user'),
  py('c.py', 'dedup', 'def dedup(xs):\n    return list(set(xs))'),
  py('d.py', 'any_of', 'def any_of(xs):\n    return random.choice(xs)'),
  py('e.py', 'load', 'def load(p):\n    with open(p) as fh:\n        return yaml.safe_load(fh)'),
  py('f.py', 'walk', 'def walk(root):\n    for d, _, fs in os.walk(root):\n        yield from (os.path.join(d, f) for f in fs)'), // prettier-ignore
  py('g.py', 'sha', 'def sha(data):\n    return hashlib.sha256(data).hexdigest()'),
];

const write = (app: App, chunks: ChunkRecord[] = CHUNKS) => {
  for (const c of chunks) app.services.code.replaceFile(c.source, c.path, [c], `h:${c.path}`, Date.now());
};
/** Rows of the code model's vectors per version, and the vec0 tables there are. */
const stored = (app: App) => ({
  byModel: Object.fromEntries(
    (app.db.prepare('SELECT model, COUNT(*) AS n FROM code_embedded GROUP BY model').all() as { model: string; n: number }[]).map((r) => [r.model, r.n]), // prettier-ignore
  ),
  tables: app.db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'code\\_vectors\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL%'").pluck().all() as string[], // prettier-ignore
});
const version = (app: App) => app.services.codeModel.loader.state().version!;
const ctx = (app: App) => ({ requestId: 'r', logger: app.logger, signal: new AbortController().signal }) as never;

describe('the shipped code model', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('is not loaded until the first code write, which stores a vector of its version for each chunk', async () => {
    expect(t.app.services.codeModel.loader.state().state).toBe('unloaded');
    write(t.app);
    expect(version(t.app)).toMatch(/^trawl-code-[0-9a-f]{12}$/);
    await t.app.services.codeModel.vectors.idle();
    expect(stored(t.app).byModel).toEqual({ [version(t.app)]: CHUNKS.length });
    expect(stored(t.app).tables).toEqual([vectorTable(version(t.app), 128, 'code_vectors')]);
    // a file written again keeps one vector per chunk; a file emptied loses its vector
    write(t.app, [{ ...CHUNKS[0]!, code: `${CHUNKS[0]!.code}\n` }]);
    t.app.services.code.replaceFile('lib', 'g.py', [], 'h:gone', Date.now());
    expect(stored(t.app).byModel).toEqual({ [version(t.app)]: CHUNKS.length - 1 });
    const vectors = t.app.db.prepare('SELECT COUNT(*) FROM code_vec_chunks').pluck().get();
    expect(vectors).toBe(CHUNKS.length - 1);
  });

  it("gives a stored page's code examples their vectors in the page's write", async () => {
    const before = stored(t.app).byModel[version(t.app)]!;
    const markdown = 'Read a file in one call:\n\n```python\nwith open(path) as fh:\n    data = fh.read()\n```\n';
    const page: StoredPage = { ...storedDoc('https://docs.example.com/io', 'Files', markdown), markdown };
    await t.app.services.documents.upsert(page, new Date().toISOString());
    expect(stored(t.app).byModel[version(t.app)]).toBe(before + 1);
  });

  it('ranks first a chunk that shares no word with the question, which the lexical index alone misses', async () => {
    const query = 'utc now';
    expect(t.app.services.code.search(query, { limit: 10 }).map((h) => h.symbol)).not.toContain('stamp');
    const res = await postJson(t.url, '/context', { query }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    const sources = res.body.sources as { symbol: string }[];
    expect(sources[0]!.symbol).toBe('stamp');
    expect(Object.keys(res.body)).not.toContain('warnings');
  });
});

describe('a missing model file', () => {
  let t: TestServer;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await startTestServer({ codeModel: '/nonexistent/code-model.bin' }, { logger: logs.logger });
    write(t.app);
  });
  afterAll(() => t.close());

  it('leaves /context lexical, warned once in the log', async () => {
    for (const query of ['dedup a list', 'walk a folder']) {
      const res = await postJson(t.url, '/context', { query }, { 'x-api-key': t.key });
      expect(res.status).toBe(200);
      expect((res.body.sources as { symbol: string }[])[0]!.symbol).toBe(query.startsWith('dedup') ? 'dedup' : 'walk');
      expect(Object.keys(res.body)).not.toContain('warnings');
    }
    const warned = logs.entries().filter((e) => e.msg === 'code model not loaded; code context is ranked lexically');
    expect(warned).toHaveLength(1);
    expect(t.app.db.prepare('SELECT COUNT(*) FROM code_embedded').pluck().get()).toBe(0);
  });

  it('is in the status report (doctor and /status), with the fix', async () => {
    const report = await offlineReport(t.app.config);
    expect(report.providers.codeModel).toMatchObject({ name: 'codeModel', state: 'failed', configured: true });
    expect(report.providers.codeModel.detail).toMatch(/^missing \(.*ENOENT.*\): \/context ranks by words only$/);
    expect(report.nextSteps.some((s) => s.level === 'broken' && /TRAWL_CODE_MODEL/.test(s.fix ?? ''))).toBe(true);
    const status = await fetch(`${t.url}/status`, { headers: { 'x-api-key': t.key } });
    const body = (await status.json()) as { providers: { codeModel: { state: string; detail: string } } };
    expect(body.providers.codeModel.state).toBe('failed');
  });

  it('sends get_code_context callers a warning notification, and still answers', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(t.app, { caller: null, betas: new Set() }).connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    const logged: { level: string; data: { code: string; message: string } }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params as never));
    await client.connect(clientSide);
    try {
      const res = (await client.callTool({ name: 'get_code_context', arguments: { query: 'dedup a list' } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(res.isError).toBeFalsy();
      expect(res.content[0]!.text).toContain('dedup');
      expect(logged).toEqual([
        {
          level: 'warning',
          logger: 'trawl',
          data: { code: 'CODE_MODEL_MISSING', message: WARNINGS.CODE_MODEL_MISSING },
        },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('a new model version', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  /** A model of random weights over the words of the chunks above (and its file). */
  const randomModel = (file: string, seed: number) => {
    const terms = ['utc', 'now', 'list', 'dedup', 'walk', 'random', 'choice', 'yaml', 'load', 'sha', 'hashlib', 'stamp', 'user']; // prettier-ignore
    const dims = 16;
    let x = seed;
    const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const table = Float32Array.from({ length: terms.length * dims }, rand);
    const header = {
      format: 'trawl-code-model' as const,
      dims,
      vocab: terms.length,
      towers: 1 as const,
      maxTerms: 256,
    };
    fs.writeFileSync(file, serializeCodeModel(header, terms, [table]));
    return file;
  };
  const open = (codeModel?: string) =>
    createApp(loadConfig({}, { dataDir: dir.dir, logLevel: 'silent', codeModel }), {});

  it('re-embeds every chunk in the background, then drops the old version; queries read only the loaded one', async () => {
    const first = open();
    write(first);
    const old = version(first);
    await first.services.codeModel.vectors.idle();
    await first.close();

    const file = randomModel(path.join(dir.dir, 'random.bin'), 7);
    const second = open(file);
    try {
      // the query loads the new model; its answer reads the new table, filled by the job afterwards
      const answer = await second.services.context.run({ query: 'utc now', tokensNum: 'dynamic' }, ctx(second));
      const now = version(second);
      expect(now).not.toBe(old);
      expect(answer.resultsCount).toBeGreaterThanOrEqual(0);
      const nearest = second.services.codeModel.vectors.nearest('dedup list', 100)!;
      const ids = nearest.map((h) => h.id);
      const embeddedBy = second.db.prepare('SELECT model FROM code_vec_chunks WHERE doc_id = ?').pluck();
      for (const id of ids) expect(embeddedBy.all(id)).toContain(now);
      await second.services.codeModel.vectors.idle();
      expect(stored(second)).toEqual({
        byModel: { [now]: CHUNKS.length },
        tables: [vectorTable(now, 16, 'code_vectors')],
      });
      expect(second.db.prepare('SELECT DISTINCT model FROM code_vec_chunks').pluck().all()).toEqual([now]);
    } finally {
      await second.close();
    }
  });
});
