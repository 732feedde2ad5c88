// The long fuzz run (issues 21 and 32): every case class of test/fuzz, weighted as in CI, against the built
// server (`trawl serve` from dist/, a loopback model), over REST and MCP, 60,000 cases by default (CI runs
// about 20,000), sent FUZZ_CONCURRENCY (4) at a time and judged by the CI oracle (no 5xx, 4xx in the envelope, each answer
// within 1 s, /health answering), going on past a rule break. Prints per endpoint the cases, 2xx, 4xx by
// tag, 5xx, rule breaks and the slowest answer; the last line is the headline.
// Usage: node bench/fuzz.mjs [--cases N] [--seed S]    (FUZZ_SEED / FUZZ_CASES work too)
import fs from 'node:fs';
import path from 'node:path';
import { loadTs } from '../scripts/lib/load-ts.mjs';
import { CLI, HOST, childEnv, fmt, freePort, machineLine, makeTmpDir, mdTable, requireBuild, spawnTracked, stopChild, waitFor200 } from './lib.mjs'; // prettier-ignore

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TOTAL = Number(arg('cases') ?? process.env.FUZZ_CASES ?? 60_000);
const SEED = Number(arg('seed') ?? process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** The fuzz modules of test/fuzz, bundled from TypeScript (packages stay external). */
const loadFuzz = () =>
  loadTs('fuzz', ['cases', 'env', 'hostile', 'mcp-door', 'oracle', 'runner'].map((m) => `export * from './test/fuzz/${m}.ts';`).join('\n')); // prettier-ignore

/** `trawl serve` from dist/ on a free port with a fresh data directory and the loopback model; its URL and first key. */
async function startServer(fuzz, modelBaseUrl) {
  const dataDir = makeTmpDir('trawl-fuzz-');
  const port = await freePort();
  const flags = fuzz.fuzzFlags(modelBaseUrl);
  const args = [CLI, 'serve', '--data-dir', dataDir, '--host', HOST, '--port', String(port), '--log-level', 'error', '--tools', 'all', '--model-base-url', flags.modelBaseUrl, '--model', flags.model, '--model-api-key', flags.modelApiKey, '--model-timeout-ms', String(flags.modelTimeoutMs)]; // prettier-ignore
  const child = spawnTracked(process.execPath, args, { env: childEnv(), stdio: ['ignore', 'ignore', 'inherit'] });
  await waitFor200(port, '/health', { child, timeoutMs: 20_000 });
  const key = fs.readFileSync(path.join(dataDir, 'first-api-key'), 'utf8').trim();
  return { child, base: `http://${HOST}:${port}`, key };
}

/** One table row of an endpoint report. */
function row(report) {
  const get = (bucket) => report.counts.get(bucket) ?? 0;
  const tags = [...report.counts].filter(([b]) => b.startsWith('4xx')).sort((a, b) => b[1] - a[1]);
  const fourXx = tags.map(([b, n]) => `${b.slice(4)} ${n}`).join(', ') || '–';
  const fiveXx = [...report.counts].filter(([b]) => b === '5xx' || b === 'no answer').reduce((s, [, n]) => s + n, 0);
  return [report.endpoint, report.cases, get('2xx'), fourXx, fiveXx, report.violations, fmt(report.maxMs, 0)];
}

/** Every endpoint of one door, `perEndpoint` cases each, without stopping at a rule break. */
async function runDoor(fuzz, target, endpoints, perEndpoint) {
  const reports = [];
  for (const { endpoint, doc } of endpoints) {
    const report = await fuzz.fuzzEndpoint(target, endpoint, doc, fuzz.CASE_CLASSES, { seed: SEED, numRuns: perEndpoint, concurrency: fuzz.FUZZ_CONCURRENCY, keepGoing: true }); // prettier-ignore
    console.error(`fuzz: ${endpoint.name}: ${report.cases} cases, ${report.violations} rule breaks`);
    reports.push(report);
  }
  return reports;
}

requireBuild();
const fuzz = await loadFuzz();
const model = await fuzz.startFuzzModel();
const server = await startServer(fuzz, model.baseUrl);
const doc = await (await fetch(`${server.base}/openapi.json`)).json();
const rest = fuzz.endpointsOf(doc).map((endpoint) => ({ endpoint, doc }));
const client = await fuzz.connectHttpMcp(server.base, server.key);
const tools = (await fuzz.toolEndpoints(client)).map(({ endpoint, schema }) => ({ endpoint, doc: schema }));
const perEndpoint = Math.ceil(TOTAL / (rest.length + tools.length));
console.error(`fuzz: FUZZ_SEED=${SEED}, ${perEndpoint} cases per endpoint, ${rest.length} routes and ${tools.length} tools`); // prettier-ignore

const started = performance.now();
const health = () => fuzz.healthProblem(server.base);
const reports = [
  ...(await runDoor(fuzz, fuzz.restTarget(server.base, server.key), rest, perEndpoint)),
  ...(await runDoor(fuzz, { send: (c) => fuzz.sendToolCase(client, c), health }, tools, perEndpoint)),
];
const minutes = (performance.now() - started) / 60_000;
await client.close();
await stopChild(server.child);
await model.close();

const rows = reports.map(row);
const sum = (i) => rows.reduce((s, r) => s + r[i], 0);
const cases = sum(1);
const maxMs = Math.max(...reports.map((r) => r.maxMs));
const resent = reports.reduce((s, r) => s + r.resent, 0);
console.log(`# Fuzz: ${cases} cases against trawl serve (dist/), seed ${SEED}\n\n${machineLine()}\n`);
const weights = fuzz.CASE_CLASSES.map((c) => `${c} ${fuzz.CLASS_WEIGHTS[c]}`).join(', ');
console.log(`Classes (relative weights): ${weights}; ${perEndpoint} per endpoint, ${fuzz.FUZZ_CONCURRENCY} in flight, every case counted; ${fmt(minutes)} min. Rule: no 5xx, 4xx in the envelope, each answer ≤ ${fuzz.MAX_CASE_MS} ms (a slower one sent again alone, and a break only if slow again), /health answering.\n`); // prettier-ignore
console.log(mdTable(['endpoint', 'cases', '2xx', '4xx by tag', '5xx', 'rule breaks', 'max ms'], rows));
const byClass = new Map();
for (const r of reports) for (const [cls, n] of r.violationsByClass) byClass.set(cls, (byClass.get(cls) ?? 0) + n);
console.log(`\nRule breaks by class: ${[...byClass].map(([cls, n]) => `${cls} ${n}`).join(', ') || 'none'}.`);
const broken = reports.filter((r) => r.failure);
if (broken.length > 0) {
  console.log('\nFirst rule break per endpoint:\n');
  for (const r of broken) console.log(`- ${r.endpoint}: ${r.failure.slice(0, 400)}`);
}
console.log(
  `\nfuzz_cases=${cases} fuzz_5xx=${sum(4)} fuzz_rule_breaks=${sum(5)} fuzz_max_ms=${fmt(maxMs, 0)} fuzz_resent_alone=${resent} seed=${SEED}`,
);
