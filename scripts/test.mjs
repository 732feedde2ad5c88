// The test suite in lanes at once (`npm test` runs it after the build; arguments go to every vitest run,
// e.g. `node scripts/test.mjs --reporter dot`):
//
// - `pg`: the files that use PostgreSQL, one at a time. Their change-log followers wait for every older
//   transaction of the server to end (src/store/pg/change-log.ts), so another file's open transaction
//   would hold their notification tests past the few seconds those allow.
// - `local1`, `local2`, …: every other file (SQLite in temp dirs, loopback servers), shared out in turn
//   by name, one at a time per lane, beside the first: nothing of theirs is shared with another lane.
//   `TRAWL_TEST_LOCAL_LANES` sets how many (default 2).
//
// One vitest process ran every file one after the other (vitest's default on 2 cores). Each lane's lines
// carry its name; the exit code is non-zero when a lane failed.
//
//   node scripts/test.mjs [vitest run arguments…]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const extra = process.argv.slice(2);

/** What makes a test file a PostgreSQL one: it opens the test server, directly or through the contract backends. */
const USES_POSTGRES = /helpers\/postgres|\.\/backends|TEST_DATABASE_URL|freshPgStore/;

function testFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'fixtures') out.push(...testFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) out.push(path.relative(ROOT, full));
  }
  return out.sort();
}

const files = testFiles(path.join(ROOT, 'test'));
const pg = files.filter((f) => USES_POSTGRES.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));

/** Runs one lane: vitest on `args`, its output line by line under `name`; resolves to its exit code. */
function lane(name, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', ...args, ...extra], {
      cwd: ROOT,
      // the lanes write to pipes: colours only when this script writes to a terminal
      env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tag = `[${name}] `;
    readline.createInterface({ input: child.stdout }).on('line', (l) => process.stdout.write(`${tag}${l}\n`));
    readline.createInterface({ input: child.stderr }).on('line', (l) => process.stderr.write(`${tag}${l}\n`));
    child.on('error', (err) => {
      process.stderr.write(`${tag}cannot start vitest: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const localLanes = Number(process.env.TRAWL_TEST_LOCAL_LANES ?? 2);
if (!Number.isInteger(localLanes) || localLanes < 1) {
  process.stderr.write(
    `TRAWL_TEST_LOCAL_LANES must be a whole number from 1 (got ${process.env.TRAWL_TEST_LOCAL_LANES})\n`,
  );
  process.exit(2);
}
const local = files.filter((f) => !pg.includes(f));
const lanes = [
  { name: 'pg', files: pg },
  ...Array.from({ length: localLanes }, (_, i) => ({
    name: `local${i + 1}`,
    files: local.filter((_, k) => k % localLanes === i),
  })),
];
const started = Date.now();
// each lane names its files exactly (a path is a filter vitest matches as a substring: none is another's)
const codes = await Promise.all(lanes.map((l) => lane(l.name, ['--maxWorkers', '1', ...l.files])));
const failed = lanes.filter((_, i) => codes[i] !== 0).map((l) => l.name);
process.stdout.write(
  `\ntests: ${pg.length} PostgreSQL files and ${local.length} others in ${lanes.length} lanes, ${Math.round((Date.now() - started) / 1000)} s; ` +
    (failed.length ? `failed lane(s): ${failed.join(', ')}\n` : 'every lane passed\n'),
);
process.exit(failed.length ? 1 : 0);
