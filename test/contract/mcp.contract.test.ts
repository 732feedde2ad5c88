// One contract for MCP tasks and answer snapshots, on SQLite and on PostgreSQL: ownership, a single
// end, leases and expiry of tasks; snapshots read by their owner until they expire.
import { describe, expect, it } from 'vitest';
import { createMcpSnapshotsRepo } from '../../src/store/sqlite/mcp-snapshots.js';
import type { McpSnapshotsRepo } from '../../src/store/contracts/mcp-snapshots.js';
import type { McpTasksRepo } from '../../src/store/contracts/mcp-tasks.js';
import { createMcpTasksRepo } from '../../src/store/sqlite/mcp-tasks.js';
import { createPgMcpSnapshotsRepo, createPgMcpTasksRepo } from '../../src/store/pg/mcp.js';
import { backendsFor, perTest } from './backends.js';

interface Repos {
  tasks: McpTasksRepo;
  snapshots: McpSnapshotsRepo;
}
const backends = backendsFor<Repos>(
  (db) => ({ tasks: createMcpTasksRepo(db), snapshots: createMcpSnapshotsRepo(db) }),
  (pool) => ({ tasks: createPgMcpTasksRepo(pool), snapshots: createPgMcpSnapshotsRepo(pool) }),
);
const T0 = Date.parse('2026-01-01T00:00:00Z');

describe.each(backends)('MCP tasks and snapshots on %s', (_name, available, open) => {
  const each = perTest(open);
  const add = (id: string, owner: string, extra: { worker?: string; leaseUntilMs?: number; ttlMs?: number } = {}) =>
    each.current().repo.tasks.insert({
      id,
      owner,
      tool: 'search',
      ttlMs: extra.ttlMs ?? 60_000,
      pollIntervalMs: 500,
      nowMs: T0,
      worker: extra.worker ?? null,
      leaseUntilMs: extra.leaseUntilMs ?? null,
    });

  it.runIf(available)('shows a task to its owner only, and lists an owner’s tasks newest first', async () => {
    const backend = await each.open();
    const repo = backend.repo.tasks;
    await add('t_a1', 'key_a');
    await add('t_a2', 'key_a');
    await add('t_b1', 'key_b');
    expect(await repo.get('t_a1', 'key_a')).toMatchObject({ id: 't_a1', status: 'working', created_at: '2026-01-01T00:00:00.000Z', ttl_ms: 60_000, expires_ms: T0 + 60_000, poll_interval_ms: 500, result: null }); // prettier-ignore
    expect(await repo.get('t_a1', 'key_b')).toBeUndefined();
    expect(await repo.get('t_nope', 'key_a')).toBeUndefined();
    expect((await repo.page('key_a', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['t_a2', 't_a1']);
    const first = await repo.page('key_a', Number.MAX_SAFE_INTEGER, 1);
    expect((await repo.page('key_a', first[0]!.seq, 10)).map((r) => r.id)).toEqual(['t_a1']);
    expect((await repo.page('key_b', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['t_b1']);
  });

  it.runIf(available)(
    'counts an owner’s open tasks only: not ended ones, abandoned ones or other owners’',
    async () => {
      const backend = await each.open();
      const repo = backend.repo.tasks;
      await add('t_o1', 'key_a');
      await add('t_o2', 'key_a', { worker: 'w1', leaseUntilMs: T0 + 30_000 });
      await add('t_o3', 'key_b');
      expect(await repo.countOpen('key_a', T0)).toBe(2);
      await repo.end('t_o1', { status: 'failed', statusMessage: 'x', result: '{}', nowMs: T0 + 1 });
      const counts = await Promise.all(['key_a', 'key_b', 'key_c'].map((owner) => repo.countOpen(owner, T0 + 1)));
      expect(counts).toEqual([1, 1, 0]);
      expect(await repo.countOpen('key_a', T0 + 30_001)).toBe(0); // its worker's lease lapsed: abandoned
    },
  );

  it.runIf(available)('ends a task once: the first end wins, and ending keeps it for its TTL from then', async () => {
    const backend = await each.open();
    const repo = backend.repo.tasks;
    await add('t_end', 'key_a', { ttlMs: 1000 });
    expect(await repo.linkRun('t_end', 'run_1', T0 + 100)).toBe(true);
    expect(await repo.note('t_end', 'step 1', T0 + 200)).toBe(true);
    const ended = await repo.end('t_end', { status: 'completed', statusMessage: null, result: '{"content":[]}', nowMs: T0 + 5000 }); // prettier-ignore
    expect(ended).toBe(true);
    expect(await repo.end('t_end', { status: 'cancelled', statusMessage: 'late', result: '{}', nowMs: T0 + 6000 })).toBe(false); // prettier-ignore
    expect(await repo.note('t_end', 'too late', T0 + 6000)).toBe(false);
    expect(await repo.linkRun('t_end', 'run_2', T0 + 6000)).toBe(false);
    expect(await repo.get('t_end', 'key_a')).toMatchObject({ status: 'completed', status_message: null, run_id: 'run_1', result: '{"content":[]}', expires_ms: T0 + 6000, updated_ms: T0 + 5000, last_updated_at: '2026-01-01T00:00:05.000Z' }); // prettier-ignore
  });

  it.runIf(available)('renews the lease of its own worker while the task is open, not after a cancel', async () => {
    const backend = await each.open();
    const repo = backend.repo.tasks;
    await add('t_lease', 'key_a', { worker: 'w1', leaseUntilMs: T0 + 1000 });
    expect(await repo.renewLease('t_lease', 'w2', T0 + 9000)).toBe(false);
    expect(await repo.renewLease('t_lease', 'w1', T0 + 9000)).toBe(true);
    expect((await repo.get('t_lease', 'key_a'))!.lease_until_ms).toBe(T0 + 9000);
    await repo.end('t_lease', { status: 'cancelled', statusMessage: 'stop', result: '{}', nowMs: T0 + 2000 });
    expect(await repo.statusOf('t_lease')).toBe('cancelled');
    expect(await repo.statusOf('t_nope')).toBeUndefined();
    expect(await repo.renewLease('t_lease', 'w1', T0 + 12000)).toBe(false);
  });

  it.runIf(available)('deletes ended tasks past their expiry, and open ones only a grace period later', async () => {
    const backend = await each.open();
    const repo = backend.repo.tasks;
    await add('t_old_done', 'key_c', { ttlMs: 1000 });
    await repo.end('t_old_done', { status: 'completed', statusMessage: null, result: '{}', nowMs: T0 });
    await add('t_old_open', 'key_c', { ttlMs: 1000 });
    await add('t_fresh', 'key_c', { ttlMs: 600_000 });
    expect(await repo.deleteExpired(T0 + 2000, 60_000)).toBe(1);
    const left = async () => (await repo.page('key_c', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id);
    expect(await left()).toEqual(['t_fresh', 't_old_open']);
    expect(await repo.deleteExpired(T0 + 62_000, 60_000)).toBe(1);
    expect(await left()).toEqual(['t_fresh']);
  });

  it.runIf(available)('gives a snapshot back to its owner until it expires, then deletes it', async () => {
    const backend = await each.open();
    const repo = backend.repo.snapshots;
    const snap = { id: 's1', owner: 'key_a', tool: 'search', argsHash: 'h', body: '{"results":[]}', createdMs: T0, expiresMs: T0 + 1000 }; // prettier-ignore
    await repo.insert(snap);
    expect(await repo.get('s1', 'key_a', T0 + 999)).toEqual(snap);
    expect(await repo.get('s1', 'key_b', T0)).toBeUndefined();
    expect(await repo.get('s1', 'key_a', T0 + 1000)).toBeUndefined();
    expect(await repo.deleteExpired(T0 + 999)).toBe(0);
    expect(await repo.deleteExpired(T0 + 1000)).toBe(1);
  });
});
