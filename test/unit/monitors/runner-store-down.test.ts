/**
 * The monitor runner (src/core/monitors/runner.ts) over the real PostgreSQL monitors repository when the
 * store fails under a run (a PostgreSQL restart, found by bench/soak.mjs): the run's failed reads are
 * logged, its slot is freed, and nothing rejects unheard, which under Node's default
 * `--unhandled-rejections=throw` ends the process (vitest fails a file with an unhandled rejection).
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createMonitorEvents } from '../../../src/core/monitors/events.js';
import { createRunner } from '../../../src/core/monitors/runner.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createPgMonitorsRepo } from '../../../src/store/pg/monitors.js';
import { freshPgStore, pgReachable } from '../../helpers/postgres.js';

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (drops.length) await drops.pop()!();
});

describe.runIf(pgReachable)('monitor runner, the store failing', () => {
  it('logs a run whose store reads fail and frees its slot, instead of an unhandled rejection', async () => {
    const store = await freshPgStore();
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    let executed = 0;
    const runner = createRunner({
      repo: createPgMonitorsRepo(store.pool),
      events: createMonitorEvents(60_000),
      execute: async () => {
        executed++;
        return { ok: true, output: {} };
      },
      now: () => Date.now(),
      logger: createLogger('error', sink),
      concurrency: 1,
      owner: 'test-owner',
      leaseMs: 30_000,
      onEvents: () => undefined,
    });
    drops.push(() => runner.stop());
    // the store gone: every statement of the repository now fails
    const schema = store.schema;
    await store.pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await store.close();
    runner.enqueue('run_a');
    runner.enqueue('run_b'); // waits for the one slot: the first run's failure must free it
    await runner.drain();
    const failed = () =>
      lines.filter((l) => l.msg === 'monitor run not recorded; it ends failed once its lease lapses');
    // the log line follows the run's end by a tick or two (pino writes asynchronously); bounded by a hang
    for (let i = 0; i < 200 && failed().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(failed().map((l) => l.runId)).toEqual(['run_a', 'run_b']);
    expect(executed).toBe(0);
    expect(runner.load).toEqual({ queued: 0, running: 0 });
  });
});
