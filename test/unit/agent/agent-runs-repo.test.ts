/** The agent runs repository on a real SQLite database: its atomic units (claim, start, finish) and event numbers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRunsRepo, type AgentRunsRepo, type NewAgentRun } from '../../../src/store/agent-runs.repo.js';
import { openDatabase, type Db } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/app.js';

let db: Db;
let repo: AgentRunsRepo;
let cleanup: () => void;
const AT = '2026-01-01T00:00:00.000Z';
const event = (name: string) => ({ event: name, data: '{}', at: AT });
const run = (id: string, keyId = 'key_a'): NewAgentRun => ({
  id,
  key_id: keyId,
  request: '{"query":"q","effort":"low"}',
  owner: null,
  lease_until_ms: null,
  created_at: AT,
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

beforeAll(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDatabase(t.dir);
  repo = createAgentRunsRepo(db);
});
afterAll(() => {
  db.close();
  cleanup();
});

describe('agent runs repo', () => {
  it('claims a queued run once, and only while its key runs fewer than its limit', async () => {
    await repo.insert(run('r_a1'), event('agent_run.created'));
    await repo.insert(run('r_a2'));
    expect(await repo.claim('r_a1', 1, AT, 'p1', 1000)).toBe(true);
    expect(await repo.claim('r_a1', 1, AT, 'p2', 1000)).toBe(false); // taken
    expect(await repo.claim('r_a2', 1, AT, 'p1', 1000)).toBe(false); // the key has no room
    expect(await repo.claim('r_a2', 2, AT, 'p1', 1000)).toBe(true);
    expect((await repo.get('r_a1'))!).toMatchObject({ status: 'running', owner: 'p1', lease_until_ms: 1000 });
  });

  it('ends a run once, with its terminal event numbered after the others, and no start after its end', async () => {
    await repo.insert(run('r_b1', 'key_b'), event('agent_run.created'));
    expect(await repo.claim('r_b1', 5, AT, 'p1', 1000)).toBe(true);
    expect(await repo.markStarted('r_b1', 'p1', '{"starts":1}', event('agent_run.started'))).toBe(true);
    expect(await repo.appendEvent('r_b1', 'agent_run.search', '{}', AT)).toBe(3);
    const terminal = (row: { id: string }) => ({ event: 'agent_run.cancelled', data: JSON.stringify({ id: row.id }), at: AT }); // prettier-ignore
    expect(await repo.finish('r_b1', ended, terminal)).toBe(true);
    expect(await repo.finish('r_b1', { ...ended, status: 'failed' }, terminal)).toBe(false);
    expect(await repo.markStarted('r_b1', 'p1', '{"starts":2}', event('agent_run.started'))).toBe(false);
    const events = await repo.events('r_b1', 0, 100);
    expect(events.map((e) => [e.seq, e.event])).toEqual([
      [1, 'agent_run.created'],
      [2, 'agent_run.started'],
      [3, 'agent_run.search'],
      [4, 'agent_run.cancelled'],
    ]);
    expect((await repo.get('r_b1'))!).toMatchObject({ status: 'cancelled', progress: null, lease_until_ms: null });
  });
});
