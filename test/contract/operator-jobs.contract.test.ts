// One contract for the console's operator jobs, on SQLite and on PostgreSQL, two handles standing for two
// processes or replicas: only the holder writes a running job's progress and renews its lease, a job
// ends once (whoever ends it first), a reader ends it only once its lease lapsed, and the list pages
// newest first, of one team when asked.
import { describe, expect, it } from 'vitest';
import type { NewOperatorJob, OperatorJobsRepo } from '../../src/store/contracts/operator-jobs.js';
import { createOperatorJobsRepo } from '../../src/store/sqlite/operator-jobs.js';
import { createPgOperatorJobsRepo } from '../../src/store/pg/operator-jobs.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createOperatorJobsRepo, createPgOperatorJobsRepo);
const T = Date.parse('2026-05-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const job = (id: string, team = 'team_a', owner = 'host:1:aa'): NewOperatorJob => ({
  id,
  kind: 'crawl',
  key_id: `key_of_${team}`,
  team_id: team,
  input: JSON.stringify({ urls: ['https://docs.example.com/'] }),
  progress: JSON.stringify({ done: 0, total: null, failed: 0, message: 'starting' }),
  owner,
  lease_until_ms: T + 60_000,
  created_at: iso(T),
  updated_at: iso(T),
});

const ended = { state: 'completed' as const, result: '{"done":3}', error: null, updatedAt: iso(T + 5_000) };

describe.each(backends)('operator jobs repository on %s', (_name, available, open) => {
  const each = perTest(open);
  const pair = async (): Promise<[OperatorJobsRepo, OperatorJobsRepo]> => {
    const backend = await each.open();
    return [backend.repo, backend.second()];
  };

  it.runIf(available)('inserts a running job and pages the jobs newest first, of one team when asked', async () => {
    const [a, b] = await pair();
    const first = await a.insert(job('job_1'));
    expect(first).toMatchObject({ id: 'job_1', state: 'running', result: null, error: null, owner: 'host:1:aa' });
    await a.insert(job('job_2', 'team_b'));
    const third = await b.insert(job('job_3'));
    expect(third.seq).toBeGreaterThan(first.seq);
    expect((await b.page(Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['job_3', 'job_2', 'job_1']);
    expect((await b.page(third.seq, 1)).map((r) => r.id)).toEqual(['job_2']);
    expect((await a.page(Number.MAX_SAFE_INTEGER, 10, 'team_a')).map((r) => r.id)).toEqual(['job_3', 'job_1']);
    expect(await b.get('job_2')).toMatchObject({ team_id: 'team_b', kind: 'crawl' });
    expect(await b.get('job_none')).toBeUndefined();
    await expect(a.insert(job('job_1'))).rejects.toThrow(); // an id is one job
  });

  it.runIf(available)('lets only the holder write progress and renew, and ends a job once', async () => {
    const [a, b] = await pair();
    await a.insert(job('job_1'));
    const progress = JSON.stringify({ done: 2, total: 10, failed: 1, message: '7 queued' });
    expect(await b.progress('job_1', 'host:2:bb', progress, iso(T + 1_000))).toBe(false);
    expect(await a.progress('job_1', 'host:1:aa', progress, iso(T + 1_000))).toBe(true);
    expect(await b.renewLease('job_1', 'host:2:bb', T + 90_000)).toBe(false);
    expect(await a.renewLease('job_1', 'host:1:aa', T + 90_000)).toBe(true);
    expect(await b.get('job_1')).toMatchObject({ progress, lease_until_ms: T + 90_000, updated_at: iso(T + 1_000) });
    const last = JSON.stringify({ done: 3, total: 3, failed: 1, message: 'finished' });
    const [one, two] = await Promise.all([a.end('job_1', { ...ended, progress: last }), b.end('job_1', { ...ended, state: 'failed', error: 'no' })]); // prettier-ignore
    expect([one, two].filter(Boolean)).toHaveLength(1);
    const row = (await a.get('job_1'))!;
    expect(row).toMatchObject({ owner: null, lease_until_ms: null });
    expect(['completed', 'failed']).toContain(row.state);
    // an ended job takes no more progress, renewal or end
    expect(await a.progress('job_1', 'host:1:aa', progress, iso(T + 9_000))).toBe(false);
    expect(await a.renewLease('job_1', 'host:1:aa', T + 99_000)).toBe(false);
    expect(await b.end('job_1', { ...ended, state: 'interrupted' })).toBe(false);
  });

  it.runIf(available)('keeps the progress written last when an end brings none', async () => {
    const [a] = await pair();
    await a.insert(job('job_1'));
    const progress = JSON.stringify({ done: 5, total: null, failed: 0, message: '50 % of the file read' });
    await a.progress('job_1', 'host:1:aa', progress, iso(T + 1_000));
    expect(await a.end('job_1', ended)).toBe(true);
    expect(await a.get('job_1')).toMatchObject({ state: 'completed', progress, result: '{"done":3}' });
  });

  it.runIf(available)('lets a reader end a running job only once its lease lapsed', async () => {
    const [a, b] = await pair();
    await a.insert(job('job_1'));
    const interrupted = { state: 'interrupted' as const, result: null, error: 'interrupted', updatedAt: iso(T + 61_000) }; // prettier-ignore
    expect(await b.end('job_1', { ...interrupted, lapsedBefore: T + 30_000 })).toBe(false);
    expect(await b.get('job_1')).toMatchObject({ state: 'running' });
    expect(await b.end('job_1', { ...interrupted, lapsedBefore: T + 61_000 })).toBe(true);
    expect(await a.get('job_1')).toMatchObject({ state: 'interrupted', error: 'interrupted', owner: null });
    // the holder, late, ends nothing and writes no progress
    expect(await a.end('job_1', ended)).toBe(false);
    expect(await a.progress('job_1', 'host:1:aa', '{}', iso(T + 62_000))).toBe(false);
  });
});
