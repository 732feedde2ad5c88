/**
 * The 2026-07-28 envelope under hostile input, sent raw to POST /mcp (fetch, not a client): `_meta` with a
 * wrong, absent or unknown protocol version, hostile client capabilities and log levels, `Mcp-Method` /
 * `Mcp-Name` headers that disagree with the body, the Tasks extension's methods on hostile ids and on
 * another key's tasks, `server/discover` with junk params, oversized and deep JSON, batches, and
 * malformed messages (`cases.ts` `envelopeCase`, FUZZ_SEED, FUZZ_RUNS). The rule: a JSON-RPC error or a
 * 4xx with a clear message (`oracle.ts` `rpcAnswerProblem`), never a 5xx, within 1 s (a slow case is
 * sent again alone), no key, stack trace or server path in the answer, another key's task never shown
 * nor cancelled, and the server healthy after.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { modernEraClient, pollTask, type EraClient } from '../helpers/mcp-eras.js';
import type { ModelServer } from '../helpers/model-server.js';
import { envelopeCase, type EnvelopeCase, type TaskIds } from './cases.js';
import { FUZZ_CONCURRENCY, fuzzFlags, fuzzRuns, fuzzSeed, startFuzzModel } from './env.js';
import { healthProblem, leakProblem, MAX_CASE_MS, rpcAnswerProblem, slowness } from './oracle.js';

const seed = fuzzSeed();
const numRuns = fuzzRuns(600);
console.log(`fuzz (MCP envelope): FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`);

/** Words only another key's tasks hold (in their queries, so in their runs and results). */
const FOREIGN_MARK = `zebra${Math.random().toString(36).slice(2, 10)}`;

let model: ModelServer;
let t: TestServer;
const clients: EraClient[] = [];
let stranger: EraClient;
let tasks: TaskIds;
/** What another key's tasks hold that the fuzzing key must never see: the mark, their runs' ids. */
const foreignSecrets: string[] = [FOREIGN_MARK];
let working = '';
/** Model requests of another key's slow task wait for this (the task stays working while the fuzz runs). */
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  model = await startFuzzModel((body) => (JSON.stringify(body.messages).includes(`${FOREIGN_MARK} slow`) ? held : undefined)); // prettier-ignore
  // the model's timeout long enough for the held requests (the fuzz's own answer at once)
  t = await startTestServer({ ...fuzzFlags(model.baseUrl), modelTimeoutMs: 120_000, tools: 'all' });
  const strangerKey = (await t.app.services.keys.create('stranger', {}, null)).key;
  foreignSecrets.push(strangerKey);
  stranger = await modernEraClient({ kind: 'http', url: t.url, key: strangerKey });
  const own = await modernEraClient({ kind: 'http', url: t.url, key: t.key });
  clients.push(stranger, own);
  const ended = (task: Record<string, unknown>) => task.status !== 'working';
  // another key's task that ended (its result inline for its owner), the fuzzing key's own, then another key's still working
  const done = await stranger.startTask('agent_run', { query: `${FOREIGN_MARK} finished question`, effort: 'low' });
  const doneTask = await pollTask(stranger, done.taskId as string, ended);
  expect(JSON.stringify(doneTask)).toContain(FOREIGN_MARK); // its content names the mark: a leak would show it
  const mine = await own.startTask('agent_run', { query: 'the fuzzing key’s own question', effort: 'low' });
  await pollTask(own, mine.taskId as string, ended);
  const requestsBefore = model.requests.length;
  const slow = await stranger.startTask('agent_run', { query: `${FOREIGN_MARK} slow question`, effort: 'low' });
  working = slow.taskId as string;
  const running = await pollTask(stranger, working, (task) => /is running/.test(String(task.statusMessage)) && model.requests.length > requestsBefore); // prettier-ignore
  expect(running.status).toBe('working');
  for (const task of [doneTask, running]) foreignSecrets.push(...(JSON.stringify(task).match(/run_[0-9a-f]+/g) ?? []));
  tasks = { own: [mine.taskId as string], foreign: [done.taskId as string, working] };
});

afterAll(async () => {
  release();
  if (working) await stranger?.cancelTask(working).catch(() => undefined);
  await Promise.all(clients.map((c) => c.close()));
  await t?.app.services.agentRuns.engine.drain();
  await t?.close();
  await model?.close();
});

/** Sends `c` with the fuzzing key; the rule it broke, if any, and how long it took. */
async function send(c: EnvelopeCase): Promise<{ problem?: string; ms: number; status: number }> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': t.key, ...c.headers }; // prettier-ignore
  const started = performance.now();
  try {
    const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body: c.body, signal: AbortSignal.timeout(MAX_CASE_MS * 5) }); // prettier-ignore
    const text = await res.text();
    const ms = performance.now() - started;
    const secrets = [t.key, fuzzFlags(model.baseUrl).modelApiKey, ...(c.foreign ? foreignSecrets : foreignSecrets.slice(1))]; // prettier-ignore
    const problem = rpcAnswerProblem(res.status, res.headers.get('content-type') ?? '', text, c.expect) ?? leakProblem(text, secrets) ?? slowness(ms); // prettier-ignore
    return { problem, ms, status: res.status };
  } catch (err) {
    const ms = performance.now() - started;
    return { problem: `no answer after ${Math.round(ms)} ms: ${(err as Error).message}`, ms, status: 0 };
  }
}

describe('the 2026-07-28 envelope under hostile raw requests', () => {
  it(
    'answers each with a result or a clear refusal, within 1 s, shows no other key’s task, and stays up',
    { timeout: 180_000 },
    async () => {
      const cases = fc.sample(envelopeCase(tasks), { seed, numRuns });
      const failures: string[] = [];
      const slow: [number, EnvelopeCase][] = [];
      const counts = new Map<string, number>();
      let next = 0;
      let maxMs = 0;
      const where = (i: number, c: EnvelopeCase) => `case #${i} ${c.cls} (${c.what}) ${JSON.stringify(c.headers)} ${c.body.slice(0, 200)}`; // prettier-ignore
      const worker = async () => {
        while (next < cases.length && failures.length < 5) {
          const i = next++;
          const c = cases[i]!;
          const { problem, ms, status } = await send(c);
          maxMs = Math.max(maxMs, ms);
          const bucket = `${c.cls} ${status}`;
          counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
          if (problem && problem === slowness(ms)) slow.push([i, c]);
          else if (problem) failures.push(`${where(i, c)} → ${problem}`);
          if (i % 25 === 24) {
            const down = await healthProblem(t.url);
            if (down) failures.push(`after case #${i}: ${down}`);
          }
        }
      };
      await Promise.all(Array.from({ length: FUZZ_CONCURRENCY }, worker));
      for (const [i, c] of slow) {
        const { problem } = await send(c); // a busy machine stretches one answer; a slow path is slow again, alone
        if (problem) failures.push(`${where(i, c)} → ${problem} (and again when sent alone)`);
      }
      const down = await healthProblem(t.url);
      if (down) failures.push(`at the end: ${down}`);
      // another key's working task was neither cancelled nor touched by the fuzzing key's cancels
      const still = await stranger.getTask(working);
      if (still.status !== 'working') failures.push(`another key's task was ${String(still.status)} by the fuzz: ${JSON.stringify(still).slice(0, 200)}`); // prettier-ignore
      const table = [...counts]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ');
      console.log(`fuzz (MCP envelope): %d cases, slowest %d ms, %d sent again alone; %s`, cases.length, Math.round(maxMs), slow.length, table); // prettier-ignore
      expect(failures, `replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`).toEqual([]);
    },
  );
});
