/**
 * The MCP door under hostile input: every tool of `tools/list`, called by the SDK's real clients over
 * streamable HTTP with arguments derived from its input schema and mutated (FUZZ_SEED, FUZZ_RUNS), once
 * per protocol revision: the v1 client (2025-11-25, `initialize`) and the v2 client (2026-07-28, `_meta`
 * on every request). The same cases and the same rule in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import type { ModelServer } from '../helpers/model-server.js';
import { FUZZ_CONCURRENCY, fuzzFlags, fuzzRuns, fuzzSeed, startFuzzModel } from './env.js';
import { CASE_CLASSES } from './hostile.js';
import { connectEraMcp, sendToolCase, toolEndpoints, type Era, type ToolClient } from './mcp-door.js';
import { healthProblem } from './oracle.js';
import { fuzzEndpoint, type Target } from './runner.js';

const seed = fuzzSeed();
/** Cases per tool and era (the two eras together: 1,000 per tool, as when one client ran them all). */
const numRuns = fuzzRuns(500);
console.log(`fuzz (MCP): FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns} per tool and era`);

let model: ModelServer;
let t: TestServer;
const clients: ToolClient[] = [];

beforeAll(async () => {
  model = await startFuzzModel();
  t = await startTestServer({ ...fuzzFlags(model.baseUrl), tools: 'all' });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
  await model?.close();
});

describe.each<[Era, string]>([
  ['legacy', '2025-11-25'],
  ['modern', '2026-07-28'],
])('MCP door under fuzzed input, a %s client (%s)', (era, revision) => {
  it('answers every tool call with a result or a refusal, within 1 s, and stays up', { timeout: 240_000 }, async () => {
    const client = await connectEraMcp(t.url, t.key, era);
    clients.push(client);
    const secrets = [t.key, fuzzFlags(model.baseUrl).modelApiKey];
    const target: Target = { send: (c) => sendToolCase(client, c, secrets), health: () => healthProblem(t.url) };
    const tools = await toolEndpoints(client);
    expect(tools.length).toBeGreaterThan(5);
    const failures: string[] = [];
    let cases = 0;
    let maxMs = 0;
    let resent = 0;
    const counts = new Map<string, number>();
    for (const { endpoint, schema } of tools) {
      const report = await fuzzEndpoint(target, endpoint, schema, CASE_CLASSES, {
        seed,
        numRuns,
        concurrency: FUZZ_CONCURRENCY,
      });
      if (report.failure) failures.push(`${endpoint.name}: ${report.failure}`);
      else expect(report.cases, endpoint.name).toBeGreaterThanOrEqual(numRuns);
      cases += report.cases;
      maxMs = Math.max(maxMs, report.maxMs);
      resent += report.resent;
      for (const [bucket, n] of report.counts) counts.set(bucket, (counts.get(bucket) ?? 0) + n);
    }
    const table = [...counts]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ');
    console.log(`fuzz (MCP %s): %d cases, slowest %d ms, %d sent again alone; %s`, revision, cases, Math.round(maxMs), resent, table); // prettier-ignore
    expect(failures, `replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`).toEqual([]);
  });
});
