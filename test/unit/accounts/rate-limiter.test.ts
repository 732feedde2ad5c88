import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../src/core/accounts/rate-limiter.js';
import { DATABASE_FILE, openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createRateBucketsRepo } from '../../../src/store/sqlite/rate-buckets.js';
import { CLOCK_STEP_MS } from '../../../src/store/contracts/rate-buckets.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-rate-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function openStore(): { db: Db; dir: string } {
  const dir = tempDir();
  const db = openDatabase(dir);
  cleanups.unshift(() => db.close());
  return { db, dir };
}

/** A limiter on a fresh database, with a clock the test moves by hand. */
function setup() {
  const { db } = openStore();
  const clock = { ms: 1_700_000_000_000 };
  const limiter = createRateLimiter(createRateBucketsRepo(db), { now: () => clock.ms });
  const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM rate_buckets').get() as { n: number }).n;
  return { limiter, clock, rows };
}

describe('rate limiter', () => {
  it('lets a burst of qps through, then refuses with the time until the next token', async () => {
    const { limiter, clock } = setup();
    const t0 = clock.ms;
    const burst = await Promise.all(Array.from({ length: 5 }, () => limiter.take('key_a', 5)));
    expect(burst.map((d) => d.allowed)).toEqual([true, true, true, true, true]);
    expect(burst.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0]);
    // Full again once the missing tokens (200 ms each at 5/s) are back.
    expect(burst.map((d) => d.resetAtMs - t0)).toEqual([200, 400, 600, 800, 1000]);
    expect(burst.every((d) => d.limit === 5 && d.retryAfterMs === 0)).toBe(true);

    expect(await limiter.take('key_a', 5)).toEqual({
      allowed: false,
      limit: 5,
      remaining: 0,
      resetAtMs: t0 + 1000,
      retryAfterMs: 200,
    });
    clock.ms += 150;
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: false, retryAfterMs: 50, resetAtMs: t0 + 1000 });
  });

  it('refills continuously: part of a token, one token, and never beyond capacity', async () => {
    const { limiter, clock } = setup();
    for (let i = 0; i < 10; i++) await limiter.take('key_a', 10);
    clock.ms += 50; // half a token
    expect(await limiter.take('key_a', 10)).toMatchObject({ allowed: false, retryAfterMs: 50 });
    clock.ms += 50;
    expect(await limiter.take('key_a', 10)).toMatchObject({ allowed: true, remaining: 0, resetAtMs: clock.ms + 1000 });
    clock.ms += 350; // 3.5 tokens
    expect(await limiter.take('key_a', 10)).toMatchObject({ allowed: true, remaining: 2, resetAtMs: clock.ms + 750 });
    clock.ms += 60_000; // far more than capacity
    const full = await limiter.take('key_a', 10);
    expect(full).toMatchObject({ allowed: true, remaining: 9, resetAtMs: clock.ms + 100 });
    for (let i = 0; i < 9; i++) expect((await limiter.take('key_a', 10)).allowed).toBe(true);
    expect((await limiter.take('key_a', 10)).allowed).toBe(false);
  });

  it('keeps one bucket per key', async () => {
    const { limiter } = setup();
    for (let i = 0; i < 3; i++) expect((await limiter.take('key_a', 3)).allowed).toBe(true);
    expect((await limiter.take('key_a', 3)).allowed).toBe(false);
    expect(await limiter.take('key_b', 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect((await limiter.take('key_a', 3)).allowed).toBe(false);
  });

  it('treats qps 0, negative or not finite as no limit, writing nothing', async () => {
    const { limiter, clock, rows } = setup();
    for (const qps of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (let i = 0; i < 100; i++) {
        expect(await limiter.take('key_a', qps)).toEqual({
          allowed: true,
          limit: 0,
          remaining: Number.POSITIVE_INFINITY,
          resetAtMs: clock.ms,
          retryAfterMs: 0,
        });
      }
    }
    expect(rows()).toBe(0);
  });

  it('gives a qps under 1 a bucket of one request', async () => {
    const { limiter, clock } = setup();
    expect(await limiter.take('key_a', 0.5)).toMatchObject({ allowed: true, limit: 0.5, remaining: 0 });
    expect(await limiter.take('key_a', 0.5)).toMatchObject({ allowed: false, retryAfterMs: 2000 });
    clock.ms += 2000;
    expect((await limiter.take('key_a', 0.5)).allowed).toBe(true);
  });

  it('never refills negatively when the clock steps back, and restarts after a large step', async () => {
    const { limiter, clock } = setup();
    const t0 = clock.ms;
    for (let i = 0; i < 5; i++) await limiter.take('key_a', 5);
    clock.ms = t0 - 500; // behind the stored stamp: nothing refills until the clock is past it
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: false, retryAfterMs: 700, resetAtMs: t0 + 1000 });
    clock.ms = t0 + 100;
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: false, retryAfterMs: 100 });
    clock.ms = t0 + 200;
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: true, remaining: 0 });

    // A step further back than CLOCK_STEP_MS: the elapsed time is unknown, the bucket counts as full
    // and refills from the new clock on.
    clock.ms = t0 - CLOCK_STEP_MS - 1;
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: true, remaining: 4, resetAtMs: clock.ms + 200 });
    for (let i = 0; i < 4; i++) expect((await limiter.take('key_a', 5)).allowed).toBe(true);
    expect(await limiter.take('key_a', 5)).toMatchObject({ allowed: false, retryAfterMs: 200 });
    clock.ms += 200;
    expect((await limiter.take('key_a', 5)).allowed).toBe(true);
  });

  it('follows a changed qps: the capacity and the refill rate change at once', async () => {
    const { limiter, clock } = setup();
    // Lowered: a nearly full bucket of 10 is capped at the new capacity of 2.
    expect(await limiter.take('key_a', 10)).toMatchObject({ remaining: 9 });
    expect(await limiter.take('key_a', 2)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(await limiter.take('key_a', 2)).toMatchObject({ allowed: true, remaining: 0, resetAtMs: clock.ms + 1000 });
    expect(await limiter.take('key_a', 2)).toMatchObject({ allowed: false, retryAfterMs: 500 });

    // Raised: refills at the new rate up to the new capacity.
    clock.ms += 100; // 0.2 tokens at 2/s, 2 tokens at 20/s
    expect(await limiter.take('key_a', 20)).toMatchObject({ allowed: true, limit: 20, remaining: 1 });
    clock.ms += 10_000;
    expect(await limiter.take('key_a', 20)).toMatchObject({ allowed: true, remaining: 19 });
  });
  // its throughput in one process: bench/test-timings.mjs
});

describe('rate limiter across processes', () => {
  /** A child that loads the transpiled modules, waits for "go", then takes for `ms` as fast as it can. */
  const child = (modules: { repo: string; limiter: string }) => `
    import { createRequire } from 'node:module';
    import { createRateBucketsRepo } from ${JSON.stringify(modules.repo)};
    import { createRateLimiter } from ${JSON.stringify(modules.limiter)};
    const Database = createRequire(${JSON.stringify(path.join(ROOT, 'package.json'))})('better-sqlite3');
    const [file, qps, ms] = process.argv.slice(1);
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    const limiter = createRateLimiter(createRateBucketsRepo(db), { now: Date.now });
    process.stdout.write('ready\\n');
    process.stdin.once('data', async () => {
      process.stdin.destroy();
      const result = { allowed: 0, takes: 0, errors: [], first: Date.now(), last: 0 };
      const end = result.first + Number(ms);
      while (Date.now() < end) {
        try {
          if ((await limiter.take('key_shared', Number(qps))).allowed) result.allowed++;
        } catch (err) {
          result.errors.push(String(err.code ?? err.message));
        }
        result.takes++;
      }
      result.last = Date.now();
      db.close();
      process.stdout.write(JSON.stringify(result) + '\\n');
    });`;

  interface ChildResult {
    allowed: number;
    takes: number;
    errors: string[];
    first: number;
    last: number;
  }

  it('shares one bucket between two processes hammering the same key', async () => {
    const { dir } = openStore(); // migrated, in WAL mode
    const work = tempDir();
    // the repository keeps its relative import of the contract (its clock step): the same folders here
    const modules = {
      repo: path.join(work, 'sqlite', 'rate-buckets.mjs'),
      limiter: path.join(work, 'rate-limiter.mjs'),
    };
    fs.mkdirSync(path.join(work, 'sqlite'));
    fs.mkdirSync(path.join(work, 'contracts'));
    fs.writeFileSync(path.join(work, 'package.json'), '{"type":"module"}');
    for (const [source, out] of [
      ['src/store/contracts/rate-buckets.ts', path.join(work, 'contracts', 'rate-buckets.js')],
      ['src/store/sqlite/rate-buckets.ts', modules.repo],
      ['src/core/accounts/rate-limiter.ts', modules.limiter],
    ] as const) {
      const { code } = await transform(fs.readFileSync(path.join(ROOT, source), 'utf8'), {
        loader: 'ts',
        format: 'esm',
        platform: 'node',
      });
      fs.writeFileSync(out, code);
    }
    const qps = 20;
    const script = child(modules);
    const procs = [0, 1].map(() =>
      spawn(process.execPath, ['--input-type=module', '-e', script, path.join(dir, DATABASE_FILE), `${qps}`, '1500'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = procs.map((proc) => {
      let buffer = '';
      const waiters: ((line: string) => void)[] = [];
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        for (let i = buffer.indexOf('\n'); i >= 0 && waiters.length > 0; i = buffer.indexOf('\n')) {
          waiters.shift()?.(buffer.slice(0, i));
          buffer = buffer.slice(i + 1);
        }
      });
      return () => new Promise<string>((resolve) => waiters.push(resolve));
    });
    // Both started and ready before either takes, so their runs overlap.
    const ready = lines.map((next) => next());
    expect(await Promise.all(ready)).toEqual(['ready', 'ready']);
    const done = lines.map((next) => next());
    for (const proc of procs) proc.stdin.end('go\n');
    const results = (await Promise.all(done)).map((line) => JSON.parse(line) as ChildResult);

    const window = Math.max(...results.map((r) => r.last)) - Math.min(...results.map((r) => r.first));
    const total = results[0]!.allowed + results[1]!.allowed;
    const ceiling = qps + (qps * window) / 1000;
    console.log(
      `rate limiter, two processes at qps ${qps} for ${window} ms: allowed ${results.map((r) => r.allowed).join(' + ')} ` +
        `= ${total} (at most ${ceiling.toFixed(1)}); ${results.map((r) => Math.round(r.takes / 1.5)).join(' + ')} takes/s`,
    );
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(total).toBeLessThanOrEqual(Math.floor(ceiling) + 1);
    // Hammered by both, the bucket is drained as it refills: nearly every token goes to someone.
    expect(total).toBeGreaterThanOrEqual(Math.floor(ceiling) - 5);
    for (const r of results) expect(r.allowed).toBeGreaterThan(0);
  });
});
