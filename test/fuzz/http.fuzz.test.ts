/**
 * The REST door under hostile input: for each endpoint of the served OpenAPI document, a seeded sample of
 * schema-derived and mutated requests against the real server on 127.0.0.1:0 (FUZZ_SEED, FUZZ_RUNS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/ops/registry.js';
import { startTestServer, type TestServer } from '../helpers/app.js';
import type { ModelServer } from '../helpers/model-server.js';
import { endpointsOf, type Endpoint } from './cases.js';
import { FUZZ_CONCURRENCY, fuzzFlags, fuzzRuns, fuzzSeed, startFuzzModel } from './env.js';
import { CASE_CLASSES } from './hostile.js';
import type { Schema } from './json-arbitrary.js';
import { fuzzEndpoint, restTarget } from './runner.js';

const seed = fuzzSeed();
const numRuns = fuzzRuns(430);
console.log(`fuzz (REST): FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`);

let model: ModelServer;
let t: TestServer;
let doc: Schema;
let endpoints: Endpoint[] = [];

beforeAll(async () => {
  model = await startFuzzModel();
  t = await startTestServer(fuzzFlags(model.baseUrl));
  doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Schema;
  endpoints = endpointsOf(doc);
});

afterAll(async () => {
  await t?.close();
  await model?.close();
});

describe('REST door under fuzzed input', () => {
  it('derives cases for every operation of the OpenAPI document', () => {
    expect(endpoints).toHaveLength(OPERATIONS.length);
    expect(endpoints.map((e) => e.name)).toEqual(expect.arrayContaining(['POST /search', 'POST /contents', 'POST /monitors'])); // prettier-ignore
  });

  it('answers every case in the spec’s terms, within 1 s, and stays up', { timeout: 240_000 }, async () => {
    const target = restTarget(t.url, t.key);
    const failures: string[] = [];
    let cases = 0;
    let maxMs = 0;
    let resent = 0;
    for (const endpoint of endpoints) {
      const report = await fuzzEndpoint(target, endpoint, doc, CASE_CLASSES, {
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
    console.log(`fuzz (%s): %d cases, slowest %d ms, %d sent again alone`, 'REST', cases, Math.round(maxMs), resent); // prettier-ignore
    expect(failures, `replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`).toEqual([]);
  });
});
