/**
 * `trawl mcp` (stdio, the built CLI) on SIGTERM while an agent run it started is running: the process
 * closes as if its client had left and exits 0, and the run is back in the queue with no owner and no
 * lease (its lease is 10 minutes long: a run left to lapse would keep it), for the next process to resume.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, makeTestApp, tempDir } from '../helpers/app.js';
import { until } from '../helpers/crash.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isPlan = (body: unknown) => /"queries"/.test(JSON.stringify(body));
const data = tempDir('trawl-drain-mcp-');
let model: ModelServer;

beforeAll(async () => {
  // the plan at once; the answer never in time (the process is stopped meanwhile)
  model = await startModelServer({
    reply: (body) => (isPlan(body) ? { json: { queries: ['undici pools'] } } : { delayMs: 30_000, content: 'late' }),
  });
  const seed = makeTestApp({ dataDir: data.dir });
  await seed.app.services.documents.upsertMany(
    [storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin.')], // prettier-ignore
    new Date().toISOString(),
  );
  await seed.close();
});
afterAll(async () => {
  await model.close();
  data.cleanup();
});

/** The agent runs as stored. */
function runs(): Json[] {
  const db = new Database(path.join(data.dir, 'trawl.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT id, status, owner, lease_until_ms FROM agent_runs').all() as Json[];
  } finally {
    db.close();
  }
}

describe('trawl mcp on SIGTERM', () => {
  it('exits 0 and hands its running agent run back to the queue', { timeout: 60_000 }, async () => {
    // prettier-ignore
    const child = spawn(process.execPath, [CLI, 'mcp', '--tools', 'agent_run', '--lease-ms', '600000'], {
      env: { ...process.env, TRAWL_DATA_DIR: data.dir, TRAWL_MODEL_BASE_URL: model.baseUrl, TRAWL_MODEL: 'm', TRAWL_LOG_LEVEL: 'warn' }, // prettier-ignore
    });
    child.stdout.resume();
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const send = (message: Json) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }); // prettier-ignore
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'agent_run', arguments: { query: 'how do undici pools work', effort: 'low' } } }); // prettier-ignore
    await until(() => model.requests.some((r) => !isPlan(r.body)), 30_000, 'the run to ask for its answer');
    expect(runs()).toMatchObject([{ status: 'running' }]);

    child.kill('SIGTERM'); // stdin stays open: the client has not left
    expect(await exited).toBe(0);
    expect(runs()).toMatchObject([{ status: 'queued', owner: null, lease_until_ms: null }]);
  });
});
