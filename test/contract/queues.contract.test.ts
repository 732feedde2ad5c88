/**
 * The queues' gauges (store/contracts/queues.ts) on SQLite and PostgreSQL: each queue counts its open
 * rows only (pending deliveries, queued or running agent runs, pending or running monitor runs, working
 * or input-waiting MCP tasks, queued URLs of active crawls) and names the oldest one's time.
 */
import { describe, expect, it } from 'vitest';
import { createQueuesRepo } from '../../src/store/sqlite/queues.js';
import { createPgQueuesRepo } from '../../src/store/pg/queues.js';
import type { QueuesRepo } from '../../src/store/contracts/queues.js';
import { backendsFor, perTest } from './backends.js';

interface Subject {
  queues: QueuesRepo;
  exec(sql: string): Promise<unknown>;
}

const T = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

/** Open and closed rows of every queue, the oldest open one of each made at minute 1 or 2. */
const SEED = [
  ...[['a1', 'queued', 3], ['a2', 'running', 1], ['a3', 'completed', 0]].map(([id, status, m]) =>
    `INSERT INTO agent_runs (id, key_id, status, request, created_at, updated_at) VALUES ('${id}', 'k', '${status}', '{}', '${T(Number(m))}', '${T(0)}')`), // prettier-ignore
  ...[['e1', 'pending', 2], ['e2', 'delivered', 0]].map(([id, status, m]) =>
    `INSERT INTO webhook_deliveries (event_id, monitor_id, event_type, url, secret, body, status, give_up_ms, created_at) VALUES ('${id}', 'm', 'x', 'https://h.example/', 's', '{}', '${status}', 0, '${T(Number(m))}')`), // prettier-ignore
  ...[['r1', 'pending', 2], ['r2', 'running', 4], ['r3', 'failed', 0]].map(([id, status, m]) =>
    `INSERT INTO monitor_runs (id, monitor_id, status, origin, created_at, updated_at) VALUES ('${id}', 'm', '${status}', 'schedule', '${T(Number(m))}', '${T(0)}')`), // prettier-ignore
  ...[['t1', 'working', 1], ['t2', 'completed', 0]].map(([id, status, m]) =>
    `INSERT INTO mcp_tasks (id, owner, tool, status, ttl_ms, poll_interval_ms, created_at, last_updated_at, updated_ms, expires_ms) VALUES ('${id}', 'o', 'search', '${status}', 1, 1, '${T(Number(m))}', '${T(0)}', 0, 0)`), // prettier-ignore
  `INSERT INTO crawl_jobs (id, seeds, scope, state, created_at, updated_at) VALUES ('c1', '[]', '{}', 'active', '${T(0)}', '${T(0)}'), ('c2', '[]', '{}', 'finished', '${T(0)}', '${T(0)}')`, // prettier-ignore
  `INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at) VALUES ('c1', 'https://h.example/1', 0, 'queued', '${T(5)}'), ('c1', 'https://h.example/2', 0, 'done', '${T(0)}'), ('c2', 'https://h.example/3', 0, 'queued', '${T(0)}')`, // prettier-ignore
];

describe.each(
  backendsFor<Subject>(
    (db) => ({ queues: createQueuesRepo(db), exec: async (sql) => db.exec(sql) }),
    (pool) => ({ queues: createPgQueuesRepo(pool), exec: (sql) => pool.query(sql) }),
  ),
)('the queues on %s', (_name, available, open) => {
  const backend = perTest(open);

  it.skipIf(!available)('are empty in a new store', async () => {
    const { repo } = await backend.open();
    const read = await repo.queues.read();
    expect(read.map((q) => q.queue)).toEqual(['webhook_outbox', 'agent_runs', 'monitor_runs', 'mcp_tasks', 'crawl_frontier']); // prettier-ignore
    expect(read.every((q) => q.depth === 0 && q.oldestAt === null)).toBe(true);
    expect(await repo.queues.codeSources()).toBe(0);
  });

  it.skipIf(!available)('count the open rows and name the oldest', async () => {
    const { repo } = await backend.open();
    for (const sql of SEED) await repo.exec(sql);
    const byName = Object.fromEntries((await repo.queues.read()).map((q) => [q.queue, q]));
    expect(byName).toEqual({
      webhook_outbox: { queue: 'webhook_outbox', depth: 1, oldestAt: T(2) },
      agent_runs: { queue: 'agent_runs', depth: 2, oldestAt: T(1) },
      monitor_runs: { queue: 'monitor_runs', depth: 2, oldestAt: T(2) },
      mcp_tasks: { queue: 'mcp_tasks', depth: 1, oldestAt: T(1) },
      // a finished crawl's queued URL is not waiting for anyone
      crawl_frontier: { queue: 'crawl_frontier', depth: 1, oldestAt: T(5) },
    });
  });
});
