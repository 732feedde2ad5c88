// One contract for monitors, their runs and the webhook outbox, on SQLite and on PostgreSQL, two handles
// standing for two processes or replicas: a due slot is claimed once, a run ends once, a delivery is
// leased to one of them; a decision that throws inside a unit of work leaves nothing written.
import { describe, expect, it } from 'vitest';
import { createMonitorsRepo } from '../../src/store/sqlite/monitors.js';
import type {
  DuePlan,
  MonitorRow,
  MonitorsRepo,
  NewDelivery,
  NewMonitor,
  RunEnd,
} from '../../src/store/contracts/monitors.js';
import { createPgMonitorsRepo } from '../../src/store/pg/monitors.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createMonitorsRepo, createPgMonitorsRepo);

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
  team_id: 'team_default',
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
  team_id: row.team_id,
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

describe.each(backends)('monitors repository on %s', (_name, available, open) => {
  const each = perTest(open);
  /** Two handles on one fresh database. */
  const pair = async (): Promise<[MonitorsRepo, MonitorsRepo]> => {
    const backend = await each.open();
    return [backend.repo, backend.second()];
  };

  it.runIf(available)('claims a due slot once over two connections, with its run and event', async () => {
    const [a, b] = await pair();
    for (const id of ['mon_1', 'mon_2', 'mon_3']) await a.createMonitor(newMonitor(id), () => []);
    const [first, second] = await Promise.all([a.claimDue(T, 200, plan('a')), b.claimDue(T, 200, plan('b'))]);
    expect(first.runs.length + second.runs.length).toBe(3);
    expect(new Set([...first.runs, ...second.runs].map((r) => r.monitor_id)).size).toBe(3);
    expect((await a.monitor('mon_1'))!.next_run_ms).toBe(T + 3_600_000);
    expect(await b.dueDeliveries(T, 10)).toHaveLength(3);
    // nothing is due any more
    expect((await b.claimDue(T, 200, plan('b'))).runs).toHaveLength(0);
  });

  it.runIf(available)('cancels the open run of a monitor when its next slot is claimed', async () => {
    const [a, b] = await pair();
    await a.createMonitor(newMonitor('mon_1'), () => []);
    const { runs } = await a.claimDue(T, 200, plan('a'));
    await a.updateMonitor('mon_1', (old) => ({ row: { ...old, next_run_ms: T }, events: [] }));
    const next = await b.claimDue(T, 200, plan('b'));
    expect(next.cancelled).toEqual([runs[0]!.id]);
    expect((await a.runById(runs[0]!.id))!.status).toBe('cancelled');
  });

  it.runIf(available)('ends a run once, settles its monitor and writes its events in the same unit', async () => {
    const [a, b] = await pair();
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

  it.runIf(available)('leases a due delivery to one connection until the lease lapses', async () => {
    const [a, b] = await pair();
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

  it.runIf(available)('writes nothing when a decision inside a unit of work throws', async () => {
    const [a] = await pair();
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

  it.runIf(available)('pages due deliveries, records attempts, and forgets settled ones', async () => {
    const [a, b] = await pair();
    await a.createMonitor(newMonitor('mon_1'), (row) => [
      event(row, 'evt_1'),
      event(row, 'evt_2'),
      event(row, 'evt_3'),
    ]);
    const page1 = await a.dueDeliveries(T, 2);
    expect(page1).toHaveLength(2);
    const page2 = await a.dueDeliveries(T, 2, { ms: page1[1]!.next_attempt_ms!, seq: page1[1]!.seq });
    expect(page2).toHaveLength(1);
    expect(await a.earliestDelivery()).toBe(T);
    const claimed = (await b.claimDelivery(page1[0]!.seq, T, T + 60_000))!;
    expect(await a.earliestDelivery()).toBe(T); // the other two are still due at T
    await a.recordAttempt(
      { delivery_seq: claimed.seq, attempt: 1, at: iso(T), status: 200, error: null, duration_ms: 12 },
      {
        seq: claimed.seq,
        status: 'delivered',
        attempts: 1,
        next_attempt_ms: null,
        last_error: null,
        delivered_at: iso(T),
      },
    );
    expect(await b.attempts(claimed.seq)).toEqual([{ delivery_seq: claimed.seq, attempt: 1, at: iso(T), status: 200, error: null, duration_ms: 12 }]); // prettier-ignore
    const all = await a.deliveries('mon_1', { before: Number.MAX_SAFE_INTEGER, limit: 10 });
    expect(all.map((d) => [d.event_id, d.status])).toEqual([['evt_3', 'pending'], ['evt_2', 'pending'], ['evt_1', 'delivered']]); // prettier-ignore
  });

  it.runIf(available)('queues a failed delivery again for an attempt now, and never a delivered one', async () => {
    const [a, b] = await pair();
    await a.createMonitor(newMonitor('mon_1'), (row) => [
      event(row, 'evt_1'),
      event(row, 'evt_2'),
      event(row, 'evt_3'),
    ]);
    const attempt = async (eventId: string, status: 'delivered' | 'failed' | 'pending') => {
      const row = (await a.delivery('mon_1', eventId))!;
      const claimed = (await b.claimDelivery(row.seq, T, T + 60_000))!;
      await a.recordAttempt(
        { delivery_seq: claimed.seq, attempt: 1, at: iso(T), status: 500, error: 'HTTP 500', duration_ms: 3 },
        { seq: claimed.seq, status, attempts: 1, next_attempt_ms: status === 'pending' ? T + 30_000 : null, last_error: status === 'delivered' ? null : 'HTTP 500', delivered_at: status === 'delivered' ? iso(T) : null }, // prettier-ignore
      );
    };
    await attempt('evt_1', 'failed'); // given up
    await attempt('evt_2', 'delivered');
    await attempt('evt_3', 'pending'); // waiting for its next attempt, 30 s on
    const later = T + 5_000;
    expect(await b.retryDelivery('mon_1', 'evt_1', later)).toMatchObject({ status: 'pending', next_attempt_ms: later, attempts: 1 }); // prettier-ignore
    expect(await b.retryDelivery('mon_1', 'evt_3', later)).toMatchObject({ status: 'pending', next_attempt_ms: later }); // prettier-ignore
    expect(await b.retryDelivery('mon_1', 'evt_2', later)).toBeUndefined();
    expect(await a.delivery('mon_1', 'evt_2')).toMatchObject({ status: 'delivered' });
    expect(await b.retryDelivery('mon_other', 'evt_1', later)).toBeUndefined(); // the event is another monitor's
    expect(await a.delivery('mon_1', 'evt_unknown')).toBeUndefined();
    // both are due now and free to claim: a lease taken before does not hold them back
    expect((await a.dueDeliveries(later, 10)).map((d) => d.seq).sort()).toEqual(
      [(await a.delivery('mon_1', 'evt_1'))!.seq, (await a.delivery('mon_1', 'evt_3'))!.seq].sort(),
    );
  });

  it.runIf(available)(
    'starts, renews and lists runs, keeps the newest ended ones, and finds lapsed leases',
    async () => {
      const [a] = await pair();
      await a.createMonitor(newMonitor('mon_1', null), () => []);
      const made = [];
      for (let i = 0; i < 4; i++) {
        const run = await a.createRun('mon_1', (m) => plan('a').run(m));
        made.push(run!.id);
        expect(await a.startRun(run!.id, iso(T), T + 1000)).toBe(true);
        expect(await a.startRun(run!.id, iso(T), T + 1000)).toBe(false);
        const output = i === 3 ? null : JSON.stringify({ i });
        const ended = await a.finishRun(run!.id, { ...cancelled, status: 'completed', output, cancelled_at: null, completed_at: iso(T) }, iso(T), () => ({ events: [] }), 3); // prettier-ignore
        expect(ended).toBe(true);
      }
      expect((await a.runs('mon_1', { before: Number.MAX_SAFE_INTEGER, limit: 10 })).map((r) => r.id)).toEqual(made.slice(1).reverse()); // prettier-ignore
      expect(await a.recentOutputs('mon_1', 5)).toEqual(['{"i":2}', '{"i":1}']);
      expect(await a.lastCompletedStart('mon_1')).toBe(iso(T));
      const open = (await a.createRun('mon_1', (m) => plan('a').run(m)))!;
      expect(await a.run('mon_1', open.id)).toMatchObject({ status: 'pending', lease_until_ms: T + 60_000 });
      expect(await a.renewLease(open.id, T + 90_000)).toBe(true);
      expect((await a.lapsedRuns(T + 90_001)).map((r) => r.id)).toEqual([open.id]);
      expect(await a.lapsedRuns(T + 89_999)).toEqual([]);
      expect(await a.countScheduled()).toBe(0);
      expect(await a.earliestRun()).toBeUndefined();
      const deleted = await a.deleteMonitor('mon_1', (row) => [event(row, 'evt_gone', 'monitor.deleted')]);
      expect(deleted!.openRuns.map((r) => r.id)).toEqual([open.id]);
      expect(await a.monitor('mon_1')).toBeUndefined();
      expect(await a.runById(open.id)).toBeUndefined();
      expect((await a.dueDeliveries(T, 10)).length).toBeGreaterThan(0);
    },
  );

  it.runIf(available)(
    'hands a run back as its process stops, and lets one other process take it over at once',
    async () => {
      const [a, b] = await pair();
      await a.createMonitor(newMonitor('mon_1', null), () => []);
      const run = (await a.createRun('mon_1', (m) => plan('a').run(m)))!;
      expect(await a.startRun(run.id, iso(T), T + 60_000)).toBe(true);
      expect(await b.handBackRun(run.id, 'b', T, iso(T))).toBe(false); // not b's, and its lease is alive
      expect(await a.handBackRun(run.id, 'a', T, iso(T))).toBe(true);
      expect(await a.runById(run.id)).toMatchObject({ status: 'pending', owner: null, lease_until_ms: null, started_at: null }); // prettier-ignore
      expect(await a.lapsedRuns(T + 10_000_000)).toEqual([]); // handed back is not lapsed: it is not failed
      expect((await b.handedBackRuns()).map((r) => r.id)).toEqual([run.id]);
      const [first, second] = await Promise.all([a.takeOverRun(run.id, 'a2', T, T + 60_000), b.takeOverRun(run.id, 'b', T, T + 60_000)]); // prettier-ignore
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await a.handedBackRuns()).toEqual([]);
      expect((await a.runById(run.id))!.owner).toBe(first ? 'a2' : 'b');
      expect(await a.startRun(run.id, iso(T), T + 60_000)).toBe(true);
    },
  );
});
