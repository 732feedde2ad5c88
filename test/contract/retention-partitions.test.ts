/**
 * PostgreSQL's monthly partitions (migration `retention`): the migration turns a populated schema's
 * spend, request latency and agent events into partitioned tables with every row and key kept; the
 * sweep drops a month wholly past its line (usage folded first, totals unchanged), keeps a month that
 * still holds a kept run's events, and makes the coming months' partitions, moving in rows that
 * landed in the default partition.
 */
import { describe, expect, it } from 'vitest';
import { createRetention } from '../../src/core/retention/retention.service.js';
import { createLogger } from '../../src/lib/logger.js';
import { PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { createPgAccountsRepo } from '../../src/store/pg/accounts.js';
import { createPgAgentRunsRepo } from '../../src/store/pg/agent-runs.js';
import { openPgStore, type PgStore } from '../../src/store/pg/database.js';
import { createPgRetentionRepo } from '../../src/store/pg/retention.js';
import { createPgCacheStore } from '../../src/store/pg/cache.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const T = Date.parse('2026-06-15T12:00:00.000Z');

/** A schema migrated up to the migration before `retention`, then populated, then opened (migrated) again. */
async function populatedThenMigrated(
  seed: (store: PgStore) => Promise<void>,
): Promise<PgStore & { drop(): Promise<void> }> {
  const schema = `t_part_${process.pid}_${Date.now().toString(36)}`;
  const old = await openPgStore(TEST_DATABASE_URL, { schema, max: 2, migrations: PG_MIGRATIONS.slice(0, -1) });
  try {
    await seed(old);
  } finally {
    await old.close();
  }
  const store = await openPgStore(TEST_DATABASE_URL, { schema, max: 4 });
  return { ...store, drop: async () => { await store.pool.query(`DROP SCHEMA ${schema} CASCADE`); await store.close(); } }; // prettier-ignore
}

const SEED = `
  INSERT INTO spend (key_id, team_id, day, operation, requests, micros)
    SELECT 'key_' || (i % 7), 'team_' || (i % 3), to_char(date '2026-02-01' + (i % 130), 'YYYY-MM-DD'), 'op_' || (i % 4), i % 5 + 1, i * 10
    FROM generate_series(1, 2000) AS i ON CONFLICT DO NOTHING;
  INSERT INTO request_latency (key_id, team_id, day, operation, bucket, requests)
    SELECT 'key_' || (i % 7), 'team_' || (i % 3), to_char(date '2026-02-01' + (i % 130), 'YYYY-MM-DD'), 'op_' || (i % 4), i % 30, 1
    FROM generate_series(1, 3000) AS i ON CONFLICT DO NOTHING;
  INSERT INTO agent_runs (id, key_id, status, request, created_at, updated_at, completed_at) VALUES
    ('run_feb', 'key_1', 'completed', '{}', '2026-02-03T00:00:00.000Z', '2026-02-04T00:00:00.000Z', '2026-02-04T00:00:00.000Z'),
    ('run_long', 'key_1', 'running', '{}', '2026-03-03T00:00:00.000Z', '2026-03-03T00:00:00.000Z', NULL);
  INSERT INTO agent_events (run_id, seq, event, data, created_at)
    SELECT 'run_feb', i, 'step', '{}', '2026-02-03T00:00:' || lpad(i::text, 2, '0') || '.000Z' FROM generate_series(1, 40) AS i;
  INSERT INTO agent_events (run_id, seq, event, data, created_at) VALUES ('run_long', 1, 'step', '{}', '2026-03-03T00:00:00.000Z');
`;

const countsOf = async (store: PgStore) => {
  const q = async (sql: string) => (await store.pool.query(sql)).rows[0] as Record<string, string>;
  return {
    spend: await q('SELECT COUNT(*) AS n, SUM(requests) AS r, SUM(micros) AS m FROM spend'),
    latency: await q('SELECT COUNT(*) AS n, SUM(requests) AS r FROM request_latency'),
    events: await q('SELECT COUNT(*) AS n FROM agent_events'),
  };
};

const partitions = async (store: PgStore, table: string) =>
  (await store.pool.query<{ name: string }>(
    'SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1',
    [table],
  )).rows.map((r) => r.name); // prettier-ignore

describe.runIf(pgReachable)('PostgreSQL monthly partitions', () => {
  it('the migration keeps every row of a populated schema, its keys, and the writes and reads on them', async () => {
    let before: Awaited<ReturnType<typeof countsOf>> | undefined;
    const store = await populatedThenMigrated(async (old) => {
      await old.pool.query(SEED);
      before = await countsOf(old);
    });
    try {
      expect(await countsOf(store)).toEqual(before);
      expect(Number(before!.spend.n)).toBeGreaterThan(500);
      expect(await partitions(store, 'spend')).toEqual(expect.arrayContaining(['spend_default', 'spend_y2026m02', 'spend_y2026m06'])); // prettier-ignore
      expect(Number((await store.pool.query('SELECT COUNT(*) AS n FROM spend_default')).rows[0].n)).toBe(0);
      // the keys hold: a second row of a key, day and operation is refused; a settle adds to the first
      await expect(store.pool.query("INSERT INTO spend VALUES ('key_1', 'team_1', '2026-03-02', 'op_1', 1, 1)")).rejects.toMatchObject({ code: '23505' }); // prettier-ignore
      const accounts = createPgAccountsRepo(store.pool);
      const one = async () => (await accounts.spendBetween('2026-03-02', '2026-03-02')).find((r) => r.key_id === 'key_1' && r.operation === 'op_1')!; // prettier-ignore
      const seeded = await one();
      for (let i = 0; i < 2; i++) await accounts.settle({ spend: { key_id: 'key_1', team_id: 'team_1', day: '2026-03-02', operation: 'op_1', micros: 5 }, latencyBucket: 3 }); // prettier-ignore
      expect(await one()).toMatchObject({ requests: seeded.requests + 2, micros: seeded.micros + 10 });
      await expect(store.pool.query("INSERT INTO agent_events VALUES ('run_feb', 1, 'again', '{}', '2026-02-03T00:00:01.000Z')")).rejects.toMatchObject({ code: '23505' }); // prettier-ignore
      // a run's events are still numbered and read in order across the partitions
      const runs = createPgAgentRunsRepo(store.pool);
      expect(await runs.appendEvent('run_long', 'step', '{}', '2026-06-15T00:00:00.000Z')).toBe(2);
      expect((await runs.events('run_long', 0, 10)).map((e) => [e.seq, e.created_at.slice(0, 7)])).toEqual([[1, '2026-03'], [2, '2026-06']]); // prettier-ignore
      expect((await runs.events('run_feb', 38, 10)).map((e) => e.seq)).toEqual([39, 40]);
    } finally {
      await store.drop();
    }
  });

  it('drops the months wholly past retention (usage folded, totals equal), keeps a month with a kept run, makes the coming months', async () => {
    const store = await populatedThenMigrated((old) => old.pool.query(SEED).then(() => undefined));
    try {
      const accounts = createPgAccountsRepo(store.pool);
      const total = async () => {
        const rows = await accounts.spendBetween('2000-01-01', '2100-01-01');
        return [rows.reduce((n, r) => n + r.requests, 0), rows.reduce((n, r) => n + r.micros, 0)];
      };
      const sums = await total();
      const latency = (await accounts.latencyBetween('2000-01-01', '2100-01-01')).reduce((n, r) => n + r.requests, 0);
      // a row of a month with no partition lands in the default one, and moves when its month's is made
      await store.pool.query("INSERT INTO spend VALUES ('key_9', 'team_9', '2026-07-04', 'op_9', 1, 1)");
      const repo = createPgRetentionRepo(store.pool);
      const retention = createRetention({
        repo,
        cache: createPgCacheStore(store.pool).fetchedBefore,
        policy: { usage: 30, agentEvents: 30, monitorRuns: 90, deliveries: 30, mcpTasks: 7, mcpSnapshots: 7, crawlFrontier: 14, pageCache: 30 }, // prettier-ignore
        now: () => T,
        logger: createLogger('silent'),
        leaseMs: 60_000,
        intervalMs: 0,
      });
      const report = await retention.sweep();
      const usage = report.kinds.find((k) => k.kind === 'usage')!;
      // line 2026-05-16: February, March and April go whole, as partitions; May stays
      expect(usage.partitions).toEqual(['spend_y2026m02', 'spend_y2026m03', 'spend_y2026m04', 'request_latency_y2026m02', 'request_latency_y2026m03', 'request_latency_y2026m04']); // prettier-ignore
      expect(await partitions(store, 'spend')).not.toContain('spend_y2026m04');
      expect(await partitions(store, 'spend')).toContain('spend_y2026m05');
      expect(await total()).toEqual(sums.map((n, i) => n + [1, 1][i]!)); // the July row added above
      expect((await accounts.latencyBetween('2000-01-01', '2100-01-01')).reduce((n, r) => n + r.requests, 0)).toBe(latency); // prettier-ignore
      // February's events belong to a run that ended long ago: the month goes whole; March holds a running run's
      const events = report.kinds.find((k) => k.kind === 'agentEvents')!;
      expect(events.partitions).toEqual(['agent_events_y2026m02']);
      expect(events.rows).toBe(40);
      expect(await partitions(store, 'agent_events')).toContain('agent_events_y2026m03');
      expect(Number((await store.pool.query("SELECT COUNT(*) AS n FROM agent_events WHERE run_id = 'run_long'")).rows[0].n)).toBe(1); // prettier-ignore
      // the coming months (June to August of the sweep's clock) have partitions; July's row moved out of the default
      expect(report.created).toEqual(
        expect.arrayContaining(['spend_y2026m07', 'spend_y2026m08', 'agent_events_y2026m08']),
      );
      expect((await store.pool.query("SELECT tableoid::regclass::text AS p FROM spend WHERE key_id = 'key_9'")).rows[0].p).toBe('spend_y2026m07'); // prettier-ignore
      expect(Number((await store.pool.query('SELECT COUNT(*) AS n FROM spend_default')).rows[0].n)).toBe(0);
      // a second sweep has nothing left to drop or make
      const again = await retention.sweep();
      expect(again.created).toEqual([]);
      expect(again.kinds.flatMap((k) => k.partitions)).toEqual([]);
    } finally {
      await store.drop();
    }
  });
});
