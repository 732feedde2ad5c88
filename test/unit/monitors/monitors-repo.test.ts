// The monitors repository on a real SQLite database, two connections standing for two processes: a due
// slot is claimed once, a run ends once, a delivery is leased to one of them; a decision that throws
// inside a unit of work leaves nothing written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/store/database.js';
import {
  createMonitorsRepo,
  type DuePlan,
  type MonitorRow,
  type MonitorsRepo,
  type NewDelivery,
  type NewMonitor,
  type RunEnd,
} from '../../../src/store/monitors.repo.js';

let dir: string;
let dbs: Db[];
let a: MonitorsRepo;
let b: MonitorsRepo;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-monitors-repo-'));
  dbs = [openDatabase(dir), openDatabase(dir)];
  [a, b] = dbs.map((db) => createMonitorsRepo(db)) as [MonitorsRepo, MonitorsRepo];
});
afterEach(() => {
  for (const db of dbs) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const T = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

const newMonitor = (id: string, nextRunMs: number | null = T): NewMonitor => ({
  id,
  name: null,
  status: 'active',
  search: '{"query":"q","numResults":1}',
  period: '1h',
  output_schema: null,
  metadata: null,
  webhook_url: 'https://hooks.example.com/x',
  webhook_events: null,
  secret: 'sealed',
  key_id: null,
  anchor_ms: T - 3_600_000,
  next_run_ms: nextRunMs,
  created_at: iso(T),
  updated_at: iso(T),
});

const event = (row: MonitorRow, id: string, type = 'monitor.updated'): NewDelivery => ({
  event_id: id,
  monitor_id: row.id,
  event_type: type,
  url: row.webhook_url,
  secret: row.secret,
  body: '{}',
  next_attempt_ms: T,
  give_up_ms: T + 86_400_000,
  created_at: iso(T),
});

const cancelled: RunEnd = {
  status: 'cancelled',
  output: null,
  fail_reason: null,
  fail_detail: null,
  completed_at: null,
  failed_at: null,
  cancelled_at: iso(T),
  duration_ms: null,
};

let runs = 0;
const plan = (owner: string): DuePlan => ({
  nextRunMs: () => T + 3_600_000,
  run: (claimed) => ({
    run: {
      id: `run_${++runs}`,
      monitor_id: claimed.id,
      status: 'pending',
      origin: 'schedule',
      owner,
      lease_until_ms: T + 60_000,
      created_at: iso(T),
    },
    events: (run) => [event(claimed, `evt_${run.id}`, 'monitor.run.created')],
  }),
  cancel: { end: cancelled, at: iso(T) },
});

describe('MonitorsRepo', () => {
  it('claims a due slot once over two connections, with its run and event', async () => {
    for (const id of ['mon_1', 'mon_2', 'mon_3']) await a.createMonitor(newMonitor(id), () => []);
    const [first, second] = await Promise.all([a.claimDue(T, 200, plan('a')), b.claimDue(T, 200, plan('b'))]);
    expect(first.runs.length + second.runs.length).toBe(3);
    expect(new Set([...first.runs, ...second.runs].map((r) => r.monitor_id)).size).toBe(3);
    expect((await a.monitor('mon_1'))!.next_run_ms).toBe(T + 3_600_000);
    expect(await b.dueDeliveries(T, 10)).toHaveLength(3);
    // nothing is due any more
    expect((await b.claimDue(T, 200, plan('b'))).runs).toHaveLength(0);
  });

  it('cancels the open run of a monitor when its next slot is claimed', async () => {
    await a.createMonitor(newMonitor('mon_1'), () => []);
    const { runs } = await a.claimDue(T, 200, plan('a'));
    await a.updateMonitor('mon_1', (old) => ({ row: { ...old, next_run_ms: T }, events: [] }));
    const next = await b.claimDue(T, 200, plan('b'));
    expect(next.cancelled).toEqual([runs[0]!.id]);
    expect((await a.runById(runs[0]!.id))!.status).toBe('cancelled');
  });

  it('ends a run once, settles its monitor and writes its events in the same unit', async () => {
    await a.createMonitor(newMonitor('mon_1'), () => []);
    const { runs } = await a.claimDue(T, 200, plan('a'));
    const end: RunEnd = {
      ...cancelled,
      status: 'failed',
      fail_reason: 'api_key_invalid',
      cancelled_at: null,
      failed_at: iso(T),
    };
    const settle = (m: MonitorRow) => ({
      monitor: { ...m, key_failures: m.key_failures + 1 },
      events: [event(m, `evt_end_${m.key_failures}`)],
    });
    const ended = await Promise.all([
      a.finishRun(runs[0]!.id, end, iso(T), settle, 10),
      b.finishRun(runs[0]!.id, end, iso(T), settle, 10),
    ]);
    expect(ended.filter(Boolean)).toHaveLength(1);
    expect((await a.monitor('mon_1'))!.key_failures).toBe(1);
    expect(
      (await a.deliveries('mon_1', { before: Number.MAX_SAFE_INTEGER, limit: 10 })).map((d) => d.event_id),
    ).toContain('evt_end_0');
  });

  it('leases a due delivery to one connection until the lease lapses', async () => {
    await a.createMonitor(newMonitor('mon_1'), (row) => [event(row, 'evt_created', 'monitor.created')]);
    const [due] = await a.dueDeliveries(T, 10);
    const claims = await Promise.all([
      a.claimDelivery(due!.seq, T, T + 60_000),
      b.claimDelivery(due!.seq, T, T + 60_000),
    ]);
    expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
    expect(await b.dueDeliveries(T + 1, 10)).toHaveLength(0);
    expect(await b.claimDelivery(due!.seq, T + 60_001, T + 120_000)).toMatchObject({ event_id: 'evt_created' });
  });

  it('writes nothing when a decision inside a unit of work throws', async () => {
    await a.createMonitor(newMonitor('mon_1'), () => []);
    const refuse = () => {
      throw new Error('refused');
    };
    await expect(a.createRun('mon_1', refuse)).rejects.toThrow('refused');
    await expect(a.updateMonitor('mon_1', refuse)).rejects.toThrow('refused');
    expect(await a.openRuns('mon_1')).toHaveLength(0);
    expect(await a.createRun('mon_unknown', refuse)).toBeUndefined();
    expect(await a.updateMonitor('mon_unknown', refuse)).toBeUndefined();
    expect(await a.deleteMonitor('mon_unknown', () => [])).toBeUndefined();
  });
});
