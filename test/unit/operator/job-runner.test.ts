/**
 * The operator jobs' runner (src/core/operator/job-runner.ts) over a real SQLite operator-jobs repository,
 * on fake timers: progress reported many times a second is written about once a second (the latest
 * report, never stale by more than that), the end is written once with the last progress (completed,
 * failed with a ServiceError's message or a pointer to the log, interrupted when stopped), a job ended
 * elsewhere aborts the work, and a lapsed job is read interrupted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJobRunner, type JobStart, type JobWork } from '../../../src/core/operator/job-runner.js';
import { ServiceError } from '../../../src/errors.js';
import { createLogger } from '../../../src/lib/logger.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createOperatorJobsRepo } from '../../../src/store/sqlite/operator-jobs.js';
import type { OperatorJobsRepo } from '../../../src/store/contracts/operator-jobs.js';

let dir: string;
let db: Db;
let repo: OperatorJobsRepo;
/** The progress writes that reached the store, in order. */
let written: string[];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'Date'] });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-job-runner-'));
  db = openDatabase(dir);
  const real = createOperatorJobsRepo(db);
  written = [];
  // the real repository, its progress writes counted on their way through
  repo = {
    ...real,
    progress: async (id, owner, progress, at) => {
      written.push(progress);
      return real.progress(id, owner, progress, at);
    },
  };
});
afterEach(() => {
  vi.useRealTimers();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const runner = () =>
  createJobRunner({ repo, now: () => Date.now(), logger: createLogger('silent'), leaseMs: 30_000, progressEveryMs: 1000 }); // prettier-ignore
const job = (id: string): JobStart => ({
  id,
  kind: 'import',
  key_id: 'key_1',
  team_id: 'team_default',
  input: '{}',
  progress: null,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
});
/** A promise and its resolver. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};
const settled = async (id: string) => {
  await vi.waitFor(async () => expect((await repo.get(id))!.state).not.toBe('running'));
  return (await repo.get(id))!;
};

describe('the operator jobs runner', () => {
  it('writes progress about once a second, the latest report, and the last one with the end', async () => {
    const done = gate();
    let report!: Parameters<JobWork>[1];
    const work: JobWork = async (_signal, r) => {
      report = r;
      await done.opened;
      return { result: { imported: 50 } };
    };
    await runner().start(job('job_1'), work);
    // 50 reports over 5 seconds, ten a second
    for (let i = 1; i <= 50; i++) {
      report({ done: i, total: null, failed: 0, message: null });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(written.length).toBeGreaterThanOrEqual(5);
    expect(written.length).toBeLessThanOrEqual(6);
    const shown = JSON.parse((await repo.get('job_1'))!.progress!) as { done: number };
    expect(shown.done).toBeGreaterThanOrEqual(40); // never more than a second behind
    report({ done: 51, total: null, failed: 0, message: 'last' });
    done.open();
    const row = await settled('job_1');
    expect(row).toMatchObject({ state: 'completed', result: '{"imported":50}', error: null, owner: null });
    expect(JSON.parse(row.progress!)).toMatchObject({ done: 51, message: 'last' });
  });

  it("ends failed with a ServiceError's tag and message, or a pointer to the log", async () => {
    const jobs = runner();
    await jobs.start(job('job_1'), async () => {
      throw new ServiceError('INVALID_URLS', '"x" is not an http(s) URL.');
    });
    await jobs.start(job('job_2'), async () => {
      throw new Error('disk on fire at /var/secret');
    });
    await jobs.start(job('job_3'), async () => ({ result: { done: 0 }, failure: 'no page was fetched' }));
    expect(await settled('job_1')).toMatchObject({
      state: 'failed',
      error: 'INVALID_URLS: "x" is not an http(s) URL.',
    });
    const hidden = await settled('job_2');
    expect(hidden.error).toMatch(/^INTERNAL_ERROR: .*server log/);
    expect(hidden.error).not.toContain('secret');
    expect(await settled('job_3')).toMatchObject({
      state: 'failed',
      error: 'no page was fetched',
      result: '{"done":0}',
    });
  });

  it('stops its jobs when the server stops: interrupted, and no new one starts', async () => {
    const jobs = runner();
    const seen: AbortSignal[] = [];
    await jobs.start(job('job_1'), (signal) => {
      seen.push(signal);
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    await jobs.stop(10_000);
    expect(seen[0]!.aborted).toBe(true);
    expect(await repo.get('job_1')).toMatchObject({
      state: 'interrupted',
      error: expect.stringMatching(/^interrupted/),
    });
    await expect(jobs.start(job('job_2'), async () => ({ result: {} }))).rejects.toMatchObject({
      tag: 'SERVICE_UNAVAILABLE',
    });
  });

  it('aborts the work of a job ended elsewhere, at its next renewal, and keeps that end', async () => {
    const seen: AbortSignal[] = [];
    await runner().start(job('job_1'), (signal) => {
      seen.push(signal);
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ result: { late: true } })));
    });
    const other = { state: 'failed' as const, result: null, error: 'ended by another process', updatedAt: new Date().toISOString() }; // prettier-ignore
    expect(await repo.end('job_1', other)).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000); // a renewal: the row is no longer running
    expect(seen[0]!.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(10);
    expect(await repo.get('job_1')).toMatchObject({ state: 'failed', error: 'ended by another process', result: null });
  });

  it('reads a running job whose lease lapsed, and which it does not run, as interrupted', async () => {
    const jobs = runner();
    await repo.insert({ ...job('job_dead'), owner: 'elsewhere:1:x', lease_until_ms: Date.now() + 30_000 });
    expect((await jobs.settle((await repo.get('job_dead'))!)).state).toBe('running'); // alive: its lease holds
    await vi.advanceTimersByTimeAsync(30_001);
    expect(await jobs.settle((await repo.get('job_dead'))!)).toMatchObject({ state: 'interrupted', owner: null });
    // one of its own is never taken for dead, whatever its lease says
    const mine = gate();
    await jobs.start(job('job_mine'), async () => {
      await mine.opened;
      return { result: {} };
    });
    const row = (await repo.get('job_mine'))!;
    expect((await jobs.settle({ ...row, lease_until_ms: 0 })).state).toBe('running');
    mine.open();
    expect((await settled('job_mine')).state).toBe('completed');
  });
});
