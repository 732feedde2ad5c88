// The timings the tests no longer assert (issue 32, part 10): a test asserts behaviour, and how long the
// work takes is measured here, with medians over several runs, this checkout next to a built baseline
// when one is given, and the machine line (CPU, cores, load average) on top, since a busy machine
// stretches every figure. In process, on the built modules (dist/):
//
// - a 150,000-value enum refused by the caller-schema limits (test/unit/schemas/caller-schemas.test.ts)
// - a reference chain doubling 40 times measured once per definition (same file)
// - the depth of a 2,000,000-level JSON text, and of a 4 MB one within the limit (same file; the HTTP
//   door's 4 MB case: test/e2e/deep-bodies.test.ts)
// - a 10,000-line TypeScript file chunked for the code index (test/unit/code/chunk-limits.test.ts)
// - 100 monitor results checked against 500 earlier ones (test/unit/monitors/dedup.test.ts)
// - 1,000 rate-limiter takes on SQLite, allowed and refused (test/unit/accounts/rate-limiter.test.ts)
//
//   npm run build && node bench/test-timings.mjs [--baseline /path/to/built/checkout] [--runs 7]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, fmt, machineLine, makeTmpDir, mdTable, ratio, requireBuild, summarize } from './lib.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const baselineRoot = option('--baseline') ? path.resolve(option('--baseline')) : undefined;
const runs = Number(option('--runs', '7'));
requireBuild();

const range = (n) => Array.from({ length: n }, (_, i) => i);
const object = (properties) => ({ type: 'object', properties });
const load = (root, file) => import(pathToFileURL(path.join(root, 'dist', file)).href);

/** A deterministic pseudo-random article and title source (as the dedup test makes them). */
function articles() {
  let seed = 42;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const words = fs
    .readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    .split(/\W+/)
    .filter((w) => w.length > 3);
  const pick = (n) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
  const result = (url) => ({ url, title: pick(8), text: pick(160), summary: null, highlights: [] });
  return {
    previous: range(500).map((i) => result(`https://old.example/${i}`)),
    current: range(100).map((i) => result(`https://new.example/${i}`)),
  };
}

/** The cases of one build at `root`: name → a function doing the work once. */
async function casesOf(root) {
  const { jsonSchemaProblem } = await load(root, 'schemas/json-schema.js');
  const { measureSchema } = await load(root, 'schemas/output-schema.schema.js');
  const { tooDeepInText } = await load(root, 'lib/json-depth.js');
  const { chunkFile } = await load(root, 'core/code/chunk/chunk.js');
  const { createDeduplicator } = await load(root, 'core/monitors/dedup.js');
  const { openDatabase } = await load(root, 'store/sqlite/database.js');
  const { createRateBucketsRepo } = await load(root, 'store/sqlite/rate-buckets.js');
  const { createRateLimiter } = await load(root, 'core/accounts/rate-limiter.js');
  const limiter = createRateLimiter(createRateBucketsRepo(openDatabase(makeTmpDir())), { now: Date.now });
  const takes = async (keyId, qps) => {
    for (let i = 0; i < 1000; i++) await limiter.take(keyId, qps);
  };
  const bomb = object({ a: { type: 'string', enum: range(150_000).map((i) => `v${i}`) } });
  const defs = Object.fromEntries(range(40).map((i) => [`d${i}`, { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }])); // prettier-ignore
  const chain = { ...object({ a: { $ref: '#/$defs/d0' } }), $defs: { ...defs, d40: { type: 'string' } } };
  const deep = '['.repeat(2_000_000) + ']'.repeat(2_000_000);
  const wide = `[${'[[1],{"a":"[{"}],'.repeat(200_000)}0]`; // 4 MB within the depth limit: scanned to the end
  const source = fs.readFileSync(path.join(ROOT, 'test/fixtures/code-repo/ts/pool.ts'), 'utf8');
  const bigFile = range(115)
    .map(() => source)
    .join('\n');
  const { previous, current } = articles();
  return {
    '150,000-value enum refused by the limits': () => jsonSchemaProblem(bomb),
    'reference chain doubling 40 times, measured': () => measureSchema(chain),
    'depth of a 2,000,000-level JSON text': () => tooDeepInText(deep, 64),
    'depth of a 4 MB JSON text within the limit': () => tooDeepInText(wide, 64),
    'a 10,000-line TypeScript file chunked': () => chunkFile('big.ts', bigFile),
    '100 results against 500 earlier ones (dedup)': () => {
      const dedup = createDeduplicator(previous);
      for (const r of current) dedup.check(r);
    },
    '1,000 rate-limiter takes, allowed': () => takes('key_fast', 1e9),
    '1,000 rate-limiter takes, refused': () => takes('key_slow', 0.001),
  };
}

/** Median and p90 of `runs` timed calls of `fn` (after one warm-up call), in ms. */
async function measure(fn) {
  await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return summarize(times);
}

const current = await casesOf(ROOT);
const baseline = baselineRoot ? await casesOf(baselineRoot) : undefined;
const rows = [];
for (const [name, fn] of Object.entries(current)) {
  const now = await measure(fn);
  const before = baseline?.[name] ? await measure(baseline[name]) : undefined;
  rows.push([
    name,
    fmt(now.median),
    fmt(now.p90),
    before ? fmt(before.median) : '–',
    before ? ratio(now.median, before.median) : '–',
  ]);
}

console.log(`# What the tests no longer time (${runs} runs each, ms)\n`);
console.log(machineLine());
if (baselineRoot) console.log(`baseline: ${baselineRoot}`);
console.log(`\n${mdTable(['work', 'median', 'p90', 'baseline median', 'this / baseline'], rows)}`);
