// One contract for agent runs and their events, on SQLite and on PostgreSQL: a claim once and within
// the key's limit (also when claims race from several handles), one end with its terminal event
// numbered after the others, requeues, leases, zero retention, and events numbered without gaps when
// they are appended at once.
import { describe, expect, it } from 'vitest';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import type { NewAgentRun } from '../../src/store/contracts/agent-runs.js';
import { createPgAgentRunsRepo } from '../../src/store/pg/agent-runs.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createAgentRunsRepo, createPgAgentRunsRepo);
const AT = '2026-01-01T00:00:00.000Z';
const event = (name: string) => ({ event: name, data: '{}', at: AT });
const run = (id: string, keyId = 'key_a', extra: Partial<NewAgentRun> = {}): NewAgentRun => ({
  id,
  key_id: keyId,
  team_id: 'team_default',
  request: '{"query":"q","effort":"low"}',
  owner: null,
  lease_until_ms: null,
  created_at: AT,
  ...extra,
});
const ended = {
  status: 'cancelled' as const,
  output: null,
  cost: null,
  usage: null,
  error: null,
  stop_reason: 'cancelled',
  completed_at: AT,
};
const terminal = (row: { id: string }) => ({ event: 'agent_run.cancelled', data: JSON.stringify({ id: row.id }), at: AT }); // prettier-ignore

describe.each(backends)('agent runs on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('claims a queued run once, and only while its key runs fewer than its limit', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.insert(run('r_a1'), event('agent_run.created'));
    await repo.insert(run('r_a2'));
    expect((await repo.queued()).map((r) => r.id)).toEqual(['r_a1', 'r_a2']);
    expect(await repo.claim('r_a1', 1, AT, 'p1', 1000)).toBe(true);
    expect(await repo.claim('r_a1', 1, AT, 'p2', 1000)).toBe(false); // taken
    expect(await repo.claim('r_a2', 1, AT, 'p1', 1000)).toBe(false); // the key has no room
    expect(await repo.claim('r_a2', 2, AT, 'p1', 1000)).toBe(true);
    expect(await repo.claim('r_nope', 2, AT, 'p1', 1000)).toBe(false);
    expect(await repo.get('r_a1')).toMatchObject({ status: 'running', owner: 'p1', lease_until_ms: 1000, started_at: AT, zero_retention: 0 }); // prettier-ignore
    expect(await repo.statusOf('r_a1')).toBe('running');
    expect(await repo.statusOf('r_nope')).toBeUndefined();
    expect((await repo.page('key_a', Number.MAX_SAFE_INTEGER, 10)).map((r) => r.id)).toEqual(['r_a2', 'r_a1']);
  });

  it.runIf(available)(
    'ends a run once, with its terminal event numbered after the others, and no start after its end',
    async () => {
      const backend = await each.open();
      const { repo } = backend;
      await repo.insert(run('r_b1', 'key_b'), event('agent_run.created'));
      expect(await repo.claim('r_b1', 5, AT, 'p1', 1000)).toBe(true);
      expect(await repo.markStarted('r_b1', 'p2', '{"starts":1}', event('agent_run.started'))).toBe(false); // not its run
      expect(await repo.markStarted('r_b1', 'p1', '{"starts":1}', event('agent_run.started'))).toBe(true);
      expect(await repo.saveProgress('r_b1', 'p1', '{"step":2}')).toBe(true);
      expect(await repo.appendEvent('r_b1', 'agent_run.search', '{}', AT)).toBe(3);
      expect(await repo.finish('r_b1', ended, terminal)).toBe(true);
      expect(await repo.finish('r_b1', { ...ended, status: 'failed' }, terminal)).toBe(false);
      expect(await repo.markStarted('r_b1', 'p1', '{"starts":2}', event('agent_run.started'))).toBe(false);
      expect(await repo.saveProgress('r_b1', 'p1', '{"step":3}')).toBe(false);
      expect(await repo.renewLease('r_b1', 5000)).toBe(false);
      const events = await repo.events('r_b1', 0, 100);
      expect(events.map((e) => [e.seq, e.event])).toEqual([
        [1, 'agent_run.created'],
        [2, 'agent_run.started'],
        [3, 'agent_run.search'],
        [4, 'agent_run.cancelled'],
      ]);
      expect(events[3]!.data).toBe('{"id":"r_b1"}');
      expect((await repo.events('r_b1', 2, 1)).map((e) => e.seq)).toEqual([3]);
      expect(await repo.get('r_b1')).toMatchObject({ status: 'cancelled', progress: null, lease_until_ms: null, completed_at: AT }); // prettier-ignore
      expect(await repo.statusOf('r_b1')).toBe('cancelled');
      await repo.delete('r_b1');
      expect(await repo.get('r_b1')).toBeUndefined();
      expect(await repo.events('r_b1', 0, 100)).toEqual([]);
    },
  );

  it.runIf(available)('requeues a run its owner gives up or whose lease lapsed, and lists lapsed runs', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.insert(run('r_c1'));
    await repo.insert(run('r_c2'));
    await repo.claim('r_c1', 5, AT, 'p1', 1000);
    await repo.claim('r_c2', 5, AT, 'p2', 9000);
    expect(await repo.renewLease('r_c2', 20_000)).toBe(true);
    expect((await repo.lapsed(5000)).map((r) => r.id)).toEqual(['r_c1']);
    expect(await repo.requeue('r_c2', 'p3', 5000, AT)).toBe(false); // another's, lease alive
    expect(await repo.requeue('r_c1', null, 5000, AT)).toBe(true); // lapsed
    expect(await repo.requeue('r_c2', 'p2', 5000, AT)).toBe(true); // its owner shutting down
    expect(await repo.get('r_c2')).toMatchObject({ status: 'queued', owner: null, lease_until_ms: null });
    expect((await repo.queued()).map((r) => r.id)).toEqual(['r_c1', 'r_c2']);
  });

  it.runIf(available)('forgets a zero-retention run’s request at its end, then its output and events', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.insert(run('r_z', 'key_z', { zero_retention: 1 }), event('agent_run.created'));
    await repo.claim('r_z', 1, AT, 'p1', 1000);
    await repo.finish('r_z', { ...ended, status: 'completed', output: '{"answer":1}' }, terminal);
    expect(await repo.get('r_z')).toMatchObject({ request: '{}', output: '{"answer":1}' });
    await repo.eraseRetained('2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');
    expect((await repo.get('r_z'))!.output).toBe('{"answer":1}');
    await repo.eraseRetained('2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z');
    expect((await repo.get('r_z'))!.output).toBeNull();
    expect(await repo.events('r_z', 0, 10)).toEqual([]);
  });

  it.runIf(available)('keeps the key’s limit and numbers events without gaps when handles race', async () => {
    const backend = await each.open();
    const handles = [backend.repo, ...Array.from({ length: 3 }, () => backend.second())];
    for (let i = 0; i < 8; i++) await backend.repo.insert(run(`r_r${i}`, 'key_r'));
    const claims = await Promise.all(handles.flatMap((h, k) => [0, 1].map((j) => h.claim(`r_r${k * 2 + j}`, 3, AT, `p${k}`, 1000)))); // prettier-ignore
    expect(claims.filter(Boolean)).toHaveLength(3);
    const seqs = await Promise.all(Array.from({ length: 12 }, (_, i) => handles[i % 4]!.appendEvent('r_r0', 'agent_run.step', '{}', AT))); // prettier-ignore
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
});
