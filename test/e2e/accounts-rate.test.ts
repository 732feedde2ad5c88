/**
 * Per-key request rates at the doors, when the operator sets one: the token bucket through the real
 * REST and MCP doors of one app (on a clock the test moves; over MCP tool calls count, not protocol
 * messages), and one bucket shared by two `trawl serve` processes on one data directory, hammered
 * concurrently for two seconds of real time. The defaults: test/e2e/rate-defaults.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/context.js';
import { CLI, postJson, startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { postMcp } from '../helpers/mcp.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CONTEXT_BODY = { query: 'x', tokensNum: 100 };

/** POST /context with `key`, the body read. */
async function postContext(url: string, key: string): Promise<Response> {
  const res = await fetch(`${url}/context`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(CONTEXT_BODY),
  });
  await res.arrayBuffer();
  return res;
}

describe('one process', () => {
  let t: TestServer;
  // Frozen unless the test moves it, so no token refills between two requests however slow the machine.
  let nowMs = Date.now();
  const clock: Clock = { now: () => new Date(nowMs) };

  beforeAll(async () => {
    t = await startTestServer({ rateLimitQps: 5 }, { clock });
  });
  afterAll(() => t?.close());

  const context = (key: string) => postJson(t.url, '/context', CONTEXT_BODY, { 'x-api-key': key });
  const mcp = (key: string, id: number, method: string, params: Json) => postMcp(t.url, key, { id, method, params });
  /** The result of a JSON-RPC answer, whether sent as JSON or as one SSE event. */
  const mcpResult = async (res: Response): Promise<Json> => {
    const body = await res.text();
    const json = body.startsWith('{')
      ? body
      : body
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6);
    return (JSON.parse(json) as { result: Json }).result;
  };

  it('lets a burst of qps requests through, then answers 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await context(t.key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-reset')).toBe('1');
      remaining.push(res.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const refused = await context(t.key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      requestId: expect.stringMatching(/^[0-9a-f]{32}$/),
      tag: 'RATE_LIMIT_EXCEEDED',
      error: expect.stringMatching(/limited to 5 requests per second; retry in 1 s/),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('refills at qps a second, and a refusal takes nothing', async () => {
    for (let i = 0; i < 3; i++) expect((await context(t.key)).status).toBe(429);
    nowMs += 200; // one token at 5 a second
    expect((await context(t.key)).status).toBe(200);
    expect((await context(t.key)).status).toBe(429);
  });

  it('keeps a bucket per key, and never limits a key made with qps 0', async () => {
    const other = (await t.app.services.keys.create('other', {}, null)).key;
    const fast = (await t.app.services.keys.create('fast', { qps: 0 }, null)).key;
    expect((await context(t.key)).status).toBe(429);
    const otherRes = await context(other);
    expect(otherRes.status).toBe(200);
    expect(otherRes.headers.get('x-ratelimit-remaining')).toBe('4');
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await context(fast);
      statuses.push(res.status);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect(statuses).toEqual(new Array(25).fill(200));
  });

  it('counts MCP tool calls against the same bucket, not protocol messages', async () => {
    // empty bucket: protocol messages still pass; a tool call is an isError result saying when to retry
    const listed = await mcp(t.key, 1, 'tools/list', {});
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-ratelimit-remaining')).toBeNull();
    const refused = await mcp(t.key, 2, 'tools/call', { name: 'get_code_context', arguments: { query: 'stream a body' } }); // prettier-ignore
    expect(refused.status).toBe(200);
    expect(await mcpResult(refused)).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/^RATE_LIMIT_EXCEEDED: API key \S+ is limited to 5 requests per second; retry in 1 s$/) }], // prettier-ignore
    });

    nowMs += 1000; // full again
    for (let i = 0; i < 5; i++) {
      const res = await mcp(t.key, 3 + i, 'tools/call', { name: 'get_code_context', arguments: { query: 'stream a body' } }); // prettier-ignore
      expect((await mcpResult(res)).isError).toBeFalsy();
    }
    // five tool calls emptied the bucket the REST door draws from
    const rest = await context(t.key);
    expect(rest.status).toBe(429);
    expect(rest.body.tag).toBe('RATE_LIMIT_EXCEEDED');
  });
});

describe('two serve processes on one data directory', () => {
  const QPS = 10;
  const HAMMER_MS = 2000;
  const LOOPS_PER_SERVER = 4;
  const children: ChildProcess[] = [];
  const data = tempDir('trawl-rate-');
  let key: string;
  let urls: string[];

  /** Starts `trawl serve` on a free port; resolves with its URL once it logs `listening on`. */
  function serve(): Promise<string> {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', data.dir], {
      env: { ...process.env, TRAWL_DATA_DIR: '', TRAWL_RATE_LIMIT_QPS: String(QPS), TRAWL_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let log = '';
    return new Promise((resolve, reject) => {
      // keep reading (it logs every request) so the pipe never fills; keep only the start for errors
      child.stderr!.on('data', (chunk: Buffer) => {
        if (log.length < 20_000) log += chunk.toString();
        const url = /"url":"(http:\/\/[^"]+)".*listening on/.exec(log)?.[1];
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${log}`)));
    });
  }

  function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  /** `trawl keys create --name NAME ...` on the data directory; resolves with the key it prints. */
  function createKey(name: string, extra: string[] = []): Promise<string> {
    const args = [CLI, 'keys', 'create', '--name', name, '--data-dir', data.dir, ...extra];
    const child = spawn(process.execPath, args, { env: { ...process.env, TRAWL_DATA_DIR: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) =>
      child.once('close', (code) =>
        code === 0 ? resolve(stdout.trim()) : reject(new Error(`keys create exited with ${code}: ${stderr}`)),
      ),
    );
  }

  beforeAll(async () => {
    let warm: string;
    [key, warm] = await Promise.all([createKey('k'), createKey('warm-up', ['--qps', '0'])]);
    urls = await Promise.all([serve(), serve()]);
    // a first /context loads its code lazily (slow on a busy machine): not on the measured key's time
    for (const url of urls) expect((await postContext(url, warm)).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(children.map(stop));
    data.cleanup();
  });

  it('draws from one bucket: no more than the burst plus qps a second pass, across both', async () => {
    expect(new Set(urls).size).toBe(2);
    type Tally = { ok: number; limited: number; other: number[]; retryAfter: number[] };
    const tallies: Tally[] = urls.map(() => ({ ok: 0, limited: 0, other: [], retryAfter: [] }));
    const started = performance.now();
    const deadline = started + HAMMER_MS;

    const loop = async (server: number) => {
      const tally = tallies[server]!;
      while (performance.now() < deadline) {
        const res = await postContext(urls[server]!, key);
        if (res.status === 200) tally.ok++;
        else if (res.status === 429) {
          tally.limited++;
          tally.retryAfter.push(Number(res.headers.get('retry-after')));
        } else tally.other.push(res.status);
      }
    };
    await Promise.all(urls.flatMap((_, server) => Array.from({ length: LOOPS_PER_SERVER }, () => loop(server))));
    const elapsedSec = (performance.now() - started) / 1000;

    const ok = tallies.reduce((n, t) => n + t.ok, 0);
    const summary = JSON.stringify({ elapsedSec, tallies: tallies.map(({ retryAfter: _, ...t }) => t) });
    expect(
      tallies.flatMap((t) => t.other),
      summary,
    ).toEqual([]);
    // the bucket starts full (one second of burst) and refills at QPS a second, whichever process takes
    expect(ok, summary).toBeLessThanOrEqual(QPS + QPS * elapsedSec + 2);
    // ...and both processes served from it, and refused once it was empty
    expect(ok, summary).toBeGreaterThanOrEqual(QPS + (QPS * HAMMER_MS) / 1000 / 4);
    for (const tally of tallies) {
      expect(tally.ok, summary).toBeGreaterThanOrEqual(2);
      expect(tally.limited, summary).toBeGreaterThan(0);
      expect(
        tally.retryAfter.every((s) => Number.isInteger(s) && s >= 1),
        summary,
      ).toBe(true);
    }
  });
});
