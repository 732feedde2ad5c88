/**
 * The MCP door under hostile input: every tool of `tools/list`, called by the SDK's real client over
 * streamable HTTP with arguments derived from its input schema and mutated (FUZZ_SEED, FUZZ_RUNS).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import type { ModelServer } from '../helpers/model-server.js';
import { FUZZ_CONCURRENCY, fuzzFlags, fuzzRuns, fuzzSeed, startFuzzModel } from './env.js';
import { CASE_CLASSES } from './hostile.js';
import { connectHttpMcp, sendToolCase, toolEndpoints } from './mcp-door.js';
import { healthProblem } from './oracle.js';
import { fuzzEndpoint, type Target } from './runner.js';

const seed = fuzzSeed();
const numRuns = fuzzRuns(1_000);
console.log(`fuzz (MCP): FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`);

let model: ModelServer;
let t: TestServer;
let client: Client;

beforeAll(async () => {
  model = await startFuzzModel();
  t = await startTestServer({ ...fuzzFlags(model.baseUrl), tools: 'all' });
  client = await connectHttpMcp(t.url, t.key);
});

afterAll(async () => {
  await client?.close();
  await t?.close();
  await model?.close();
});

describe('MCP door under fuzzed input', () => {
  it('answers every tool call with a result or a refusal, within 1 s, and stays up', { timeout: 240_000 }, async () => {
    const target: Target = { send: (c) => sendToolCase(client, c), health: () => healthProblem(t.url) };
    const tools = await toolEndpoints(client);
    expect(tools.length).toBeGreaterThan(5);
    const failures: string[] = [];
    let cases = 0;
    let maxMs = 0;
    let resent = 0;
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
    }
    console.log(`fuzz (%s): %d cases, slowest %d ms, %d sent again alone`, 'MCP', cases, Math.round(maxMs), resent); // prettier-ignore
    expect(failures, `replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`).toEqual([]);
  });
});
