/** The MCP tasks repository on a real SQLite database: ownership, a single end, leases and expiry. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { createMcpTasksRepo, type McpTasksRepo } from '../../../src/store/mcp-tasks.repo.js';
import { tempDir } from '../../helpers/app.js';

let db: Db;
let repo: McpTasksRepo;
let cleanup: () => void;
const T0 = Date.parse('2026-01-01T00:00:00Z');

beforeAll(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDatabase(t.dir);
  repo = createMcpTasksRepo(db);
});
afterAll(() => {
  db.close();
  cleanup();
});

const add = (id: string, owner: string, extra: { worker?: string; leaseUntilMs?: number; ttlMs?: number } = {}) =>
  repo.insert({
    id,
    owner,
    tool: 'search',
    ttlMs: extra.ttlMs ?? 60_000,
    pollIntervalMs: 500,
    nowMs: T0,
    worker: extra.worker ?? null,
    leaseUntilMs: extra.leaseUntilMs ?? null,
  });

describe('mcp tasks repo', () => {
  it('shows a task to its owner only, and lists an owner’s tasks newest first', async () => {
    await add('t_a1', 'key_a');
    await add('t_a2', 'key_a');
    await add('t_b1', 'key_b');
    expect(await repo.get('t_a1', 'key_a')).toMatchObject({ id: 't_a1', status: 'working', created_at: '2026-01-01T00:00:00.000Z' }); // prettier-ignore
    expect(await repo.get('t_a1', 'key_b')).toBeUndefined();
    expect(await repo.get('t_nope', 'key_a')).toBeUndefined();
    expect((await repo.page('key_a', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['t_a2', 't_a1']);
    const first = await repo.page('key_a', Number.MAX_SAFE_INTEGER, 1);
    expect((await repo.page('key_a', first[0]!.seq, 10)).map((r) => r.id)).toEqual(['t_a1']);
    expect((await repo.page('key_b', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['t_b1']);
  });

  it('ends a task once: the first end wins, and ending keeps it for its TTL from then', async () => {
    await add('t_end', 'key_a', { ttlMs: 1000 });
    const ended = await repo.end('t_end', { status: 'completed', statusMessage: null, result: '{"content":[]}', nowMs: T0 + 5000 }); // prettier-ignore
    expect(ended).toBe(true);
    expect(await repo.end('t_end', { status: 'cancelled', statusMessage: 'late', result: '{}', nowMs: T0 + 6000 })).toBe(false); // prettier-ignore
    expect(await repo.note('t_end', 'too late', T0 + 6000)).toBe(false);
    expect(await repo.get('t_end', 'key_a')).toMatchObject({ status: 'completed', result: '{"content":[]}', expires_ms: T0 + 6000 }); // prettier-ignore
  });

  it('renews the lease of its own worker while the task is open, not after a cancel', async () => {
    await add('t_lease', 'key_a', { worker: 'w1', leaseUntilMs: T0 + 1000 });
    expect(await repo.renewLease('t_lease', 'w2', T0 + 9000)).toBe(false);
    expect(await repo.renewLease('t_lease', 'w1', T0 + 9000)).toBe(true);
    expect((await repo.get('t_lease', 'key_a'))!.lease_until_ms).toBe(T0 + 9000);
    await repo.end('t_lease', { status: 'cancelled', statusMessage: 'stop', result: '{}', nowMs: T0 + 2000 });
    expect(await repo.statusOf('t_lease')).toBe('cancelled');
    expect(await repo.renewLease('t_lease', 'w1', T0 + 12000)).toBe(false);
  });

  it('deletes ended tasks past their expiry, and open ones only a grace period later', async () => {
    await add('t_old_done', 'key_c', { ttlMs: 1000 });
    await repo.end('t_old_done', { status: 'completed', statusMessage: null, result: '{}', nowMs: T0 });
    await add('t_old_open', 'key_c', { ttlMs: 1000 });
    await add('t_fresh', 'key_c', { ttlMs: 600_000 });
    expect(await repo.deleteExpired(T0 + 2000, 60_000)).toBeGreaterThanOrEqual(1);
    const left = async () => (await repo.page('key_c', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id);
    expect(await left()).toEqual(['t_fresh', 't_old_open']);
    await repo.deleteExpired(T0 + 62_000, 60_000);
    expect(await left()).toEqual(['t_fresh']);
  });
});
