/**
 * The one lease engine (src/core/jobs/lease-engine.ts) and the claiming loop (job-queue.ts), on fake
 * timers and an in-memory store: renewal every third of the lease, abort when a renewal finds the job
 * ended elsewhere, looks between renewals, recovery that skips held jobs, room, idle waits, and a queue
 * that claims within a group's limit and stops claiming once stopped.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJobQueue } from '../../../src/core/jobs/job-queue.js';
import { createLeaseEngine, type LeaseStore } from '../../../src/core/jobs/lease-engine.js';

const nowMs = 1_000_000;
const now = () => nowMs;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store whose jobs are open until `ended` names them; it records each renewal. */
function memoryStore(): LeaseStore & { renewals: [string, string, number][]; ended: Set<string> } {
  const ended = new Set<string>();
  const store = {
    renewals: [] as [string, string, number][],
    ended,
    renew: async (id: string, owner: string, untilMs: number) => {
      store.renewals.push([id, owner, untilMs]);
      return !ended.has(id);
    },
  };
  return store;
}

describe('lease engine', () => {
  it('renews a held job every third of the lease until it is released', async () => {
    const store = memoryStore();
    const leases = createLeaseEngine({ store, now, leaseMs: 3000, lostReason: 'lost' }, 'me');
    const held = leases.hold('job1');
    expect(leases.has('job1')).toBe(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(store.renewals).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.renewals).toEqual([['job1', 'me', nowMs + 3000]]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(store.renewals).toHaveLength(3);
    held.release();
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.renewals).toHaveLength(3);
    expect(leases.has('job1')).toBe(false);
    expect(held.signal.aborted).toBe(false);
  });

  it('aborts the work when a renewal finds the job ended elsewhere, and ignores a failed renewal', async () => {
    const store = memoryStore();
    const errors: string[] = [];
    const leases = createLeaseEngine({
      store: {
        renew: (id, owner, until) => (id === 'broken' ? Promise.reject(new Error('closed')) : store.renew(id, owner, until)), // prettier-ignore
      },
      now,
      leaseMs: 300,
      lostReason: 'run ended elsewhere',
      onCheckError: (_err, id) => errors.push(id),
    });
    const job = leases.hold('job2');
    const broken = leases.hold('broken');
    store.ended.add('job2');
    await vi.advanceTimersByTimeAsync(100);
    expect(job.signal.aborted).toBe(true);
    expect(String(job.signal.reason)).toMatch(/run ended elsewhere/);
    expect(broken.signal.aborted).toBe(false);
    expect(errors).toEqual(['broken']);
  });

  it('looks at the row between renewals when it checks more often than it renews', async () => {
    const store = memoryStore();
    let looks = 0;
    const leases = createLeaseEngine({
      store: { renew: store.renew, isOpen: async () => (looks++, true) },
      now,
      leaseMs: 3000,
      checkMs: 250,
      lostReason: 'cancelled',
    });
    leases.hold('task');
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.renewals).toHaveLength(1); // the fourth look renews
    expect(looks).toBe(3);
  });

  it('recovers lapsed jobs it does not hold, and counts room and idleness', async () => {
    const store = memoryStore();
    let claiming = false;
    const leases = createLeaseEngine({ store, now, leaseMs: 3000, concurrency: 1, lostReason: 'x', busy: () => claiming }); // prettier-ignore
    const held = leases.hold('alive');
    expect(leases.room()).toBe(false);
    const handled: string[] = [];
    const wrote = await leases.recover(
      async () => [{ id: 'alive' }, { id: 'dead' }],
      async (row) => (handled.push(row.id), true),
    );
    expect(wrote).toBe(true);
    expect(handled).toEqual(['dead']);

    let idle = false;
    void leases.idle().then(() => (idle = true));
    claiming = true;
    held.release();
    leases.settle();
    await flush();
    expect(idle).toBe(false); // a claim is under way
    claiming = false;
    leases.settle();
    await flush();
    expect(idle).toBe(true);
    expect(leases.room()).toBe(true);
  });
});

describe('job queue', () => {
  it('claims ready jobs within their group’s limit while the process has room, and none once stopped', async () => {
    const leases = createLeaseEngine({ store: memoryStore(), now, leaseMs: 3000, concurrency: 2, lostReason: 'x' }, 'me'); // prettier-ignore
    const rows = [
      { id: 'a1', group: 'a' },
      { id: 'a2', group: 'a' },
      { id: 'b1', group: 'b' },
      { id: 'b2', group: 'b' },
    ];
    const running = new Map<string, number>();
    const started: string[] = [];
    const queue = createJobQueue(
      {
        ready: async () => rows.filter((r) => !started.includes(r.id)),
        limitOf: async (row) => (row.group === 'a' ? 1 : 5),
        claim: async (row, limit, owner, until) => {
          expect(owner).toBe('me');
          expect(until).toBe(nowMs + 3000);
          if ((running.get(row.group) ?? 0) >= limit) return undefined;
          running.set(row.group, (running.get(row.group) ?? 0) + 1);
          return row;
        },
        run: (row) => {
          started.push(row.id);
          leases.hold(row.id);
        },
      },
      leases,
    );
    await queue.pump();
    expect(started).toEqual(['a1', 'b1']); // a2 over its group's limit; b2 over the process's room
    expect(queue.pumping).toBe(false);
    await queue.stop();
    for (const id of leases.ids()) leases.abort(id, 'stop');
    await queue.pump();
    expect(started).toEqual(['a1', 'b1']);
  });

  it('stops only once the claim under way has started its job, so the job is held when stop resolves', async () => {
    const leases = createLeaseEngine({ store: memoryStore(), now, leaseMs: 3000, lostReason: 'x' }, 'me');
    let answerClaim!: () => void;
    const claimed = new Promise<void>((resolve) => (answerClaim = resolve));
    const queue = createJobQueue(
      {
        ready: async () => [{ id: 'j1' }, { id: 'j2' }],
        limitOf: async () => Infinity,
        // the store answers the claim of j1 only after the process began to stop
        claim: async (row) => (row.id === 'j1' ? (await claimed, row) : row),
        run: (row) => void leases.hold(row.id),
      },
      leases,
    );
    const pumped = queue.pump();
    await flush();
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false); // the claim of j1 is still under way
    answerClaim();
    await stopping;
    await pumped;
    // j1, claimed in the store, is held (the engine gives it back); j2 was never claimed
    expect(leases.ids()).toEqual(['j1']);
  });
});
