// Schema bombs (issue 21, defect 1): what the caller-schema limits and the schema worker cost and buy.
//
// Part 1, in process: schemas at the limits of TRAWL_MAX_SCHEMA_* (the worst ones accepted), each through
// the main-thread check (limits, references, meta-schema), a compile and a validation in the schema worker,
// and a validation that backtracks until the deadline; with the event loop's longest stall meanwhile.
// Part 2, over HTTP: a real `trawl serve` (no model), GET /health polled every 20 ms while bomb requests
// are refused or processed, next to /health alone. `--dist DIR` runs part 2 against another build (a
// checkout of an earlier commit, for the numbers before the limits), where part 1 is skipped.
//
//   npm run build && node bench/schema-limits.mjs [--dist /path/to/other/checkout] [--skip-150k]
/* global AbortSignal */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  CLI,
  HOST,
  ROOT,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  requireBuild,
  spawnTracked,
  stopChild,
  summarize,
  waitFor200,
} from './lib.mjs';

const args = process.argv.slice(2);
const distRoot = args.includes('--dist') ? path.resolve(args[args.indexOf('--dist') + 1]) : ROOT;
const skipBig = args.includes('--skip-150k');
const cli = distRoot === ROOT ? CLI : path.join(distRoot, 'dist', 'bin', 'cli.js');
requireBuild();

const range = (n) => Array.from({ length: n }, (_, i) => i);
const object = (properties) => ({ type: 'object', properties });

/** Schemas at the default limits: 64 KiB, depth 32, 1,000 enum values, 500 properties, 1,000 schema objects. */
const AT_LIMITS = {
  'anyOf, 498 object branches': object({
    a: { anyOf: range(498).map((i) => ({ type: 'object', properties: { [`k${i}`]: { const: i } }, required: [`k${i}`] })) }, // prettier-ignore
  }),
  '499 properties with patterns and formats': object(
    Object.fromEntries(range(499).map((i) => [`p${i}`, { type: 'string', pattern: `^[a-z]{1,${i + 1}}\\d*$`, format: i % 2 ? 'email' : 'date-time' }])), // prettier-ignore
  ),
  '1,000 enum values (nested objects)': object({ a: { enum: range(1000).map((i) => ({ a: { b: { c: i } }, d: [1, 2] })) } }), // prettier-ignore
  '249 $defs chained by $ref': {
    ...object({ head: { $ref: '#/$defs/d0' } }),
    $defs: Object.fromEntries(range(249).map((i) => [`d${i}`, object({ v: { type: 'string' }, ...(i < 248 ? { next: { $ref: `#/$defs/d${i + 1}` } } : {}) })])), // prettier-ignore
  },
  '199 if/then/else': { allOf: range(199).map((i) => ({ if: { properties: { a: { const: i } } }, then: { required: [`b${i}`] }, else: { minProperties: 0 } })) }, // prettier-ignore
  'depth 32 (15 levels of properties)': (() => {
    let node = { type: 'string' };
    for (let i = 0; i < 15; i++) node = object({ x: node, y: { type: 'integer' } });
    return node;
  })(),
};

/** Runs `fn` and reports its time and the event loop's longest stall meanwhile (sampled every 1 ms). */
async function timed(fn) {
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const t0 = performance.now();
  let result;
  try {
    result = await fn();
  } catch (err) {
    result = `threw: ${err.message}`;
  }
  const ms = performance.now() - t0;
  lag.disable();
  return { ms, lagMs: lag.max / 1e6, result };
}

async function inProcess() {
  const dist = path.join(distRoot, 'dist');
  if (!fs.existsSync(path.join(dist, 'core/synthesis/schema-worker.js'))) return undefined;
  const { jsonSchemaProblem, DEFAULT_SCHEMA_LIMITS } = await import(pathToFileURL(path.join(dist, 'schemas/json-schema.js')).href); // prettier-ignore
  const worker = await import(pathToFileURL(path.join(dist, 'core/synthesis/schema-worker.js')).href);
  const firstCheck = await timed(() => jsonSchemaProblem({ type: 'string' })); // loads Ajv and the meta-schema, once
  const firstCompile = await timed(() => worker.compileProblem({ type: 'string' })); // the worker's start-up, once
  const rows = [];
  let worst = 0;
  let worstLag = 0;
  for (const [name, schema] of Object.entries(AT_LIMITS)) {
    const bytes = Buffer.byteLength(JSON.stringify(schema));
    const check = await timed(() => jsonSchemaProblem(schema));
    if (check.result) throw new Error(`${name} is refused: ${check.result}`);
    const compile = await timed(() => worker.compileProblem(schema));
    const validate = await timed(() => worker.validationProblems(schema, { a: 1, x: { x: 'y' } }));
    const total = check.ms + compile.ms + validate.ms;
    worst = Math.max(worst, total);
    worstLag = Math.max(worstLag, check.ms, compile.lagMs, validate.lagMs);
    rows.push([name, (bytes / 1024).toFixed(1), fmt(check.ms), fmt(compile.ms), fmt(validate.ms), fmt(total), fmt(Math.max(compile.lagMs, validate.lagMs))]); // prettier-ignore
  }
  const redos = await timed(() => worker.validationProblems({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`)); // prettier-ignore
  worstLag = Math.max(worstLag, redos.lagMs);
  await worker.stopSchemaWorker();
  return { rows, worst, worstLag, redos, firstCheck, firstCompile, limits: DEFAULT_SCHEMA_LIMITS };
}

/** GET /health every 20 ms until `until` settles; each answer's latency in ms (no answer in 5 minutes: ∞). */
async function pollHealth(port, until) {
  const latencies = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const t0 = performance.now();
    try {
      await fetch(`http://${HOST}:${port}/health`, { signal: AbortSignal.timeout(300_000) }).then((r) => r.text());
      latencies.push(performance.now() - t0);
    } catch {
      latencies.push(Infinity);
    }
    await sleep(20);
  }
  return latencies;
}

const enumSchema = (n) => object({ a: { type: 'string', enum: range(n).map((i) => `v${i}`) } });
const BOMBS = [
  ['/search outputSchema, enum of 40,000', '/search', { query: 'x', outputSchema: enumSchema(40_000) }],
  ...(skipBig ? [] : [['/search outputSchema, enum of 150,000', '/search', { query: 'x', outputSchema: enumSchema(150_000) }]]), // prettier-ignore
  ['/contents summary.schema at the limits (anyOf, 498 branches)', '/contents', { urls: ['https://example.invalid/'], summary: { schema: AT_LIMITS['anyOf, 498 object branches'] } }], // prettier-ignore
  ['/agent/runs outputSchema, 1,000 $defs in a cycle', '/agent/runs', { query: 'x', outputSchema: { $ref: '#/$defs/d0', $defs: Object.fromEntries(range(1000).map((i) => [`d${i}`, object({ a: { $ref: `#/$defs/d${(i + 1) % 1000}` } })])) } }], // prettier-ignore
];

async function overHttp() {
  const dir = makeTmpDir();
  const port = await freePort();
  const child = spawnTracked(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dir, '--log-level', 'silent']); // prettier-ignore
  await waitFor200(port, '/health', { child, timeoutMs: 30_000 });
  const key = fs.readFileSync(path.join(dir, 'first-api-key'), 'utf8').trim();
  const post = (p, body) =>
    fetch(`http://${HOST}:${port}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body), signal: AbortSignal.timeout(600_000) }) // prettier-ignore
      .then(async (r) => ({ status: r.status, tag: (await r.json().catch(() => ({}))).tag ?? '' }));
  const rows = [];
  const alone = summarize(await pollHealth(port, sleep(2000)));
  rows.push(['(none: /health alone, 2 s)', '', '', fmt(alone.median), fmt(alone.max)]);
  let worstHealth = 0;
  for (const [name, p, body] of BOMBS) {
    const t0 = performance.now();
    const answer = post(p, body);
    const health = summarize(await pollHealth(port, answer));
    const { status, tag } = await answer;
    worstHealth = Math.max(worstHealth, health.max);
    rows.push([name, `${status} ${tag}`, fmt(performance.now() - t0, 0), fmt(health.median), fmt(health.max)]);
  }
  await stopChild(child);
  return { rows, worstHealth };
}

console.log(`# Caller JSON Schema limits\n\n${machineLine()}\n`);
const local = distRoot === ROOT ? await inProcess() : undefined;
if (local) {
  const l = local.limits;
  console.log(`## The worst schemas accepted, compiled and validated\n\nLimits: ${l.maxBytes} bytes, depth ${l.maxDepth}, ${l.maxEnumValues} enum values, ${l.maxProperties} properties, ${l.maxSubschemas} schema objects. Times in ms. The check runs on the main thread (its time is how long it holds the event loop); compiling and validating run in the worker, and "stall" is the event loop's longest delay meanwhile (1 ms sampling).\n`); // prettier-ignore
  console.log(mdTable(['schema', 'KiB', 'check (main)', 'compile (worker)', 'validate (worker)', 'total', 'stall (worker jobs)'], local.rows)); // prettier-ignore
  console.log(`\nOnce per process: the first check loads Ajv and the meta-schema on the main thread (${fmt(local.firstCheck.ms)} ms); the first compile starts the worker (${fmt(local.firstCompile.ms)} ms, stall ${fmt(local.firstCompile.lagMs)} ms).`); // prettier-ignore
  console.log(`\nA validation whose \`pattern\` backtracks (\`^(a+)+$\` on 40 a's and a !): stopped after ${fmt(local.redos.ms, 0)} ms (TRAWL_SCHEMA_TIMEOUT_MS), stall ${fmt(local.redos.lagMs)} ms: ${String(local.redos.result).slice(0, 90)}…\n`); // prettier-ignore
}
const http = await overHttp();
console.log(`## GET /health while bomb requests are answered (${distRoot === ROOT ? 'this build' : distRoot})\n`);
console.log(mdTable(['request', 'answer', 'answer ms', '/health median ms', '/health max ms'], http.rows));
console.log(
  `\n${local ? `worst_accepted_ms=${fmt(local.worst, 0)} max_stall_ms=${fmt(local.worstLag)} ` : ''}health_max_ms_during_bombs=${fmt(http.worstHealth)}`, // prettier-ignore
);
