/**
 * Retention on both backends (store/contracts/retention.ts, core/retention): each kind prunes exactly
 * what is past its line and nothing else (rows on both sides of it, open items kept however old), usage
 * totals are the same after a fold, a dry run changes nothing, and two processes racing for the periodic
 * sweep make one sweep. The page cache (a store of its own on SQLite) loses the pages and responses
 * fetched before its line, and keeps every other entry. Time is the sweep's clock, never a sleep.
 */
import path from 'node:path';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createRetention, type RetentionPolicy } from '../../src/core/retention/retention.service.js';
import { createLogger } from '../../src/lib/logger.js';
import type { AccountsRepo } from '../../src/store/contracts/accounts.js';
import type { RetentionRepo } from '../../src/store/contracts/retention.js';
import { createAccountsRepo } from '../../src/store/sqlite/accounts.js';
import type { Db } from '../../src/store/sqlite/database.js';
import { createRetentionRepo } from '../../src/store/sqlite/retention.js';
import { createPgAccountsRepo } from '../../src/store/pg/accounts.js';
import { createPgRetentionRepo } from '../../src/store/pg/retention.js';
import type { CacheStore } from '../../src/store/contracts/cache.js';
import { createCacheStore } from '../../src/store/sqlite/cache.js';
import { createPgCacheStore } from '../../src/store/pg/cache.js';
import { backendsFor, perTest } from './backends.js';

/** What a test works with: the repositories, and plain SQL both backends read alike. */
interface Handle {
  repo: RetentionRepo;
  cache: CacheStore;
  accounts: AccountsRepo;
  exec(sql: string): Promise<void>;
  count(table: string, where?: string): Promise<number>;
  column(sql: string): Promise<string[]>;
}

/** The cache stores the handles opened, closed after the suite. */
const caches: CacheStore[] = [];
const opened = (cache: CacheStore) => (caches.push(cache), cache);
afterAll(async () => {
  for (const cache of caches) await cache.close();
});

const sqliteHandle = (db: Db): Handle => ({
  repo: createRetentionRepo(db),
  cache: opened(createCacheStore(path.dirname(db.name))),
  accounts: createAccountsRepo(db),
  exec: async (sql) => void db.exec(sql),
  count: async (table, where = 'true') => (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n, // prettier-ignore
  column: async (sql) => (db.prepare(sql).raw().all() as unknown[][]).map((r) => String(r[0])),
});

const pgHandle = (pool: pg.Pool): Handle => ({
  repo: createPgRetentionRepo(pool),
  cache: opened(createPgCacheStore(pool)),
  accounts: createPgAccountsRepo(pool),
  exec: async (sql) => void (await pool.query(sql)),
  count: async (table, where = 'true') => Number((await pool.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`)).rows[0].n), // prettier-ignore
  column: async (sql) => (await pool.query({ text: sql, rowMode: 'array' })).rows.map((r: unknown[]) => String(r[0])),
});

const T = Date.parse('2026-06-15T12:00:00.000Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const POLICY: RetentionPolicy = {
  usage: 30, // line 2026-05-16: April and before are folded, May stays daily
  agentEvents: 30,
  monitorRuns: 90, // line 2026-03-17
  deliveries: 30,
  mcpTasks: 7,
  mcpSnapshots: 7,
  crawlFrontier: 14, // line 2026-06-01T12:00
  pageCache: 30, // line 2026-05-16T12:00
};

/** Cache entries on both sides of the page cache's line, and one that holds no page (kept). */
async function seedCache(cache: CacheStore): Promise<void> {
  const pages = cache.namespace('page', 1);
  const raws = cache.namespace('raw', 1);
  const page = (at: string) => ({ page: { title: 'T', text: 'x' }, fetchedAt: at });
  await pages.set('https://old.example/', page('2026-05-16T11:59:59.000Z'));
  await pages.set('https://new.example/', page('2026-05-16T12:00:00.000Z'));
  await raws.set('https://old.example/', { url: 'https://old.example/', text: '<p>x', fetchedAt: '2026-01-02T00:00:00.000Z' }); // prettier-ignore
  await cache.namespace('summary', 1).set('s', { summary: 'kept: no fetch time' });
}

/** Which of the seeded cache entries are left. */
async function cacheLeft(cache: CacheStore): Promise<string[]> {
  const left = [];
  for (const [ns, key] of [
    ['page', 'https://old.example/'],
    ['page', 'https://new.example/'],
    ['raw', 'https://old.example/'],
    ['summary', 's'],
  ] as const) {
    // prettier-ignore
    if ((await cache.namespace(ns, 1).get(key)) !== undefined) left.push(`${ns}:${key}`);
  }
  return left;
}

/** Rows on both sides of every line, and open items older than any line. */
async function seed(h: Handle): Promise<void> {
  const spend = (key: string, team: string, day: string, requests: number, micros: number) =>
    `('${key}', '${team}', '${day}', 'search', ${requests}, ${micros})`;
  await h.exec(`
    INSERT INTO spend (key_id, team_id, day, operation, requests, micros) VALUES
      ${spend('key_a', 'team_a', '2026-03-10', 3, 300)}, ${spend('key_a', 'team_a', '2026-03-11', 2, 250)},
      ${spend('key_a', 'team_a', '2026-04-30', 1, 100)}, ${spend('key_b', 'team_b', '2026-04-02', 5, 5000)},
      ${spend('key_a', 'team_a', '2026-05-02', 4, 40)}, ${spend('key_a', 'team_a', '2026-06-15', 7, 70)};
    INSERT INTO request_latency (key_id, team_id, day, operation, bucket, requests) VALUES
      ('key_a', 'team_a', '2026-03-10', 'search', 20, 2), ('key_a', 'team_a', '2026-03-11', 'search', 20, 1),
      ('key_a', 'team_a', '2026-03-11', 'search', 25, 1), ('key_a', 'team_a', '2026-06-15', 'search', 20, 7);
    INSERT INTO agent_runs (id, key_id, status, request, created_at, updated_at, completed_at) VALUES
      ('run_old', 'key_a', 'completed', '{}', '2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'),
      ('run_new', 'key_a', 'failed', '{}', '2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'),
      ('run_open', 'key_a', 'running', '{}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', NULL);
    INSERT INTO agent_events (run_id, seq, event, data, created_at) VALUES
      ('run_old', 1, 'a', '{}', '2026-04-01T00:00:00.000Z'), ('run_old', 2, 'b', '{}', '2026-05-01T00:00:00.000Z'),
      ('run_new', 1, 'a', '{}', '2026-06-01T00:00:00.000Z'),
      ('run_open', 1, 'a', '{}', '2026-01-01T00:00:00.000Z'), ('run_open', 2, 'b', '{}', '2026-01-02T00:00:00.000Z');
  `);
  // monitor runs: seven old completed, one old failed, one old still running, one new completed
  const runs = [
    ...Array.from({ length: 7 }, (_, i) => [`mr_c${i + 1}`, 'completed', `2026-01-0${i + 1}T00:00:00.000Z`]),
    ['mr_failed', 'failed', '2026-01-08T00:00:00.000Z'],
    ['mr_running', 'running', '2026-01-09T00:00:00.000Z'],
    ['mr_new', 'completed', '2026-06-01T00:00:00.000Z'],
  ];
  for (const [id, status, at] of runs) {
    await h.exec(`INSERT INTO monitor_runs (id, monitor_id, status, origin, created_at, updated_at)
      VALUES ('${id}', 'mon_1', '${status}', 'schedule', '${at}', '${at}')`);
  }
  const delivery = (event: string, status: string, created: string) =>
    `INSERT INTO webhook_deliveries (event_id, monitor_id, event_type, url, secret, body, status, give_up_ms, created_at)
     VALUES ('${event}', 'mon_1', 'monitor.run.completed', 'https://hooks.example.com/', 's', '{}', '${status}', 0, '${created}')`;
  await h.exec(delivery('evt_old_delivered', 'delivered', '2026-04-01T00:00:00.000Z'));
  await h.exec(delivery('evt_old_failed', 'failed', '2026-04-02T00:00:00.000Z'));
  await h.exec(delivery('evt_old_pending', 'pending', '2026-04-03T00:00:00.000Z'));
  await h.exec(delivery('evt_new_delivered', 'delivered', '2026-06-01T00:00:00.000Z'));
  await h.exec(`INSERT INTO webhook_attempts (delivery_seq, attempt, at, status, duration_ms)
    SELECT seq, 1, created_at, 500, 10 FROM webhook_deliveries;
    INSERT INTO webhook_attempts (delivery_seq, attempt, at, status, duration_ms)
    SELECT seq, 2, created_at, 200, 10 FROM webhook_deliveries WHERE event_id = 'evt_old_delivered'`);
  const task = (id: string, status: string, expires: number) =>
    `('${id}', 'key_a', 'web_search', '${status}', 1000, 1000, '${iso(T)}', '${iso(T)}', ${T}, ${expires})`;
  await h.exec(`
    INSERT INTO mcp_tasks (id, owner, tool, status, ttl_ms, poll_interval_ms, created_at, last_updated_at, updated_ms, expires_ms) VALUES
      ${task('task_old_done', 'completed', T - 8 * DAY)}, ${task('task_old_working', 'working', T - 30 * DAY)},
      ${task('task_new_done', 'failed', T - 6 * DAY)};
    INSERT INTO mcp_snapshots (id, owner, tool, args_hash, body, created_ms, expires_ms) VALUES
      ('snap_old', 'key_a', 'web_search', 'h', '{}', ${T - 9 * DAY}, ${T - 8 * DAY}),
      ('snap_new', 'key_a', 'web_search', 'h', '{}', ${T - 2 * DAY}, ${T - DAY});
    INSERT INTO crawl_jobs (id, seeds, scope, state, created_at, updated_at) VALUES
      ('job_done_old', '[]', '{}', 'finished', '2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'),
      ('job_done_new', '[]', '{}', 'finished', '2026-06-10T00:00:00.000Z', '2026-06-10T00:00:00.000Z'),
      ('job_active', '[]', '{}', 'active', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
  `);
  for (const [job, n] of [
    ['job_done_old', 3],
    ['job_done_new', 2],
    ['job_active', 2],
  ] as const) {
    for (let i = 0; i < n; i++) {
      await h.exec(`INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at)
        VALUES ('${job}', 'https://site.example.com/${i}', 0, 'done', '2026-01-01T00:00:00.000Z')`);
    }
  }
}

/** Every seeded table's rows, to compare before and after. */
const TABLES = ['spend', 'request_latency', 'usage_months', 'latency_months', 'agent_events', 'agent_runs', 'monitor_runs',
  'webhook_deliveries', 'webhook_attempts', 'mcp_tasks', 'mcp_snapshots', 'crawl_jobs', 'crawl_frontier']; // prettier-ignore
const counts = async (h: Handle) =>
  Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await h.count(t)])));

/** Spend and latency as every reader sums them: per team and key, over all days and from May. */
async function totals(h: Handle) {
  const all = await h.accounts.spendBetween('2000-01-01', '2100-12-31');
  const sum = (rows: { requests: number; micros?: number }[]) =>
    rows.reduce<{ requests: number; micros: number }>((t, r) => ({ requests: t.requests + r.requests, micros: t.micros + (r.micros ?? 0) }), { requests: 0, micros: 0 }); // prettier-ignore
  const byKey = (key: string) => sum(all.filter((r) => r.key_id === key));
  const latency = await h.accounts.latencyBetween('2000-01-01', '2100-12-31');
  const buckets = new Map<string, number>();
  for (const r of latency) buckets.set(`${r.key_id}:${r.bucket}`, (buckets.get(`${r.key_id}:${r.bucket}`) ?? 0) + r.requests); // prettier-ignore
  return {
    all: sum(all),
    keyA: byKey('key_a'),
    keyB: byKey('key_b'),
    teamB: sum(await h.accounts.spendBetween('2000-01-01', '2100-12-31', 'team_b')),
    since: sum(await h.accounts.spendSince('2026-03-01')),
    fromMay: sum(await h.accounts.spendSince('2026-05-01')),
    buckets: [...buckets.entries()].sort(),
  };
}

const service = (h: Handle, now = () => T, intervalMs = 3_600_000) =>
  createRetention({ repo: h.repo, cache: h.cache.fetchedBefore, policy: POLICY, now, logger: createLogger('silent'), leaseMs: 60_000, intervalMs }); // prettier-ignore

describe.each(backendsFor(sqliteHandle, pgHandle))('retention on %s', (_name, available, open) => {
  const backend = perTest(open);

  it.runIf(available)(
    'prunes exactly what is past each line, keeps open items, and usage sums stay the same',
    async () => {
      const { repo: h } = await backend.open();
      await seed(h);
      await seedCache(h.cache);
      const before = await totals(h);
      const report = await service(h).sweep();
      const rows = Object.fromEntries(report.kinds.map((k) => [k.kind, k.rows]));
      // usage: the 4 spend and 3 latency rows of March and April are folded; May's and June's stay daily
      expect(rows).toEqual({ usage: 7, agentEvents: 2, monitorRuns: 4, deliveries: 2, mcpTasks: 1, mcpSnapshots: 1, crawlFrontier: 3, pageCache: 2 }); // prettier-ignore
      expect(await cacheLeft(h.cache)).toEqual(['page:https://new.example/', 'summary:s']);
      expect(await h.column('SELECT day FROM spend ORDER BY day')).toEqual(['2026-05-02', '2026-06-15']);
      expect(await h.column("SELECT month || ':' || key_id || ':' || requests || ':' || micros FROM usage_months ORDER BY month, key_id")).toEqual(['2026-03:key_a:5:550', '2026-04:key_a:1:100', '2026-04:key_b:5:5000']); // prettier-ignore
      expect(await h.column("SELECT month || ':' || bucket || ':' || requests FROM latency_months ORDER BY bucket")).toEqual(['2026-03:20:3', '2026-03:25:1']); // prettier-ignore
      expect(await totals(h)).toEqual(before);
      expect(await h.column("SELECT run_id || ':' || seq FROM agent_events ORDER BY run_id, seq")).toEqual(['run_new:1', 'run_open:1', 'run_open:2']); // prettier-ignore
      expect(await h.count('agent_runs')).toBe(3); // the runs stay; only their events go
      // the monitor's five newest completed runs stay whatever their age, and the running one
      expect(await h.column('SELECT id FROM monitor_runs ORDER BY id')).toEqual(['mr_c4', 'mr_c5', 'mr_c6', 'mr_c7', 'mr_new', 'mr_running']); // prettier-ignore
      expect(await h.column('SELECT event_id FROM webhook_deliveries ORDER BY event_id')).toEqual(['evt_new_delivered', 'evt_old_pending']); // prettier-ignore
      expect(await h.count('webhook_attempts')).toBe(2); // the attempts of the deliveries that went, went with them
      expect(await h.column('SELECT id FROM mcp_tasks ORDER BY id')).toEqual(['task_new_done', 'task_old_working']);
      expect(await h.column('SELECT id FROM mcp_snapshots ORDER BY id')).toEqual(['snap_new']);
      expect(await h.column('SELECT job_id FROM crawl_frontier ORDER BY job_id')).toEqual(['job_active', 'job_active', 'job_done_new', 'job_done_new']); // prettier-ignore
      expect(await h.count('crawl_jobs')).toBe(3);

      // a second sweep finds nothing more, and totals still agree
      const again = await service(h).sweep();
      expect(again.kinds.every((k) => k.rows === 0)).toBe(true);
      expect(await totals(h)).toEqual(before);
      // a later day's spend on a folded month (a late settle) is folded on top, the sums still exact
      await h.accounts.settle({ spend: { key_id: 'key_a', team_id: 'team_a', day: '2026-04-29', operation: 'search', micros: 9 } }); // prettier-ignore
      await service(h).sweep();
      expect(await h.column("SELECT requests || ':' || micros FROM usage_months WHERE month = '2026-04' AND key_id = 'key_a'")).toEqual(['2:109']); // prettier-ignore
    },
  );

  it.runIf(available)('a dry run counts what a sweep deletes and changes nothing, the lease included', async () => {
    const { repo: h } = await backend.open();
    await seed(h);
    await seedCache(h.cache);
    const rowsBefore = await counts(h);
    const leaseBefore = await h.repo.lease.row();
    const dry = await service(h).sweep({ dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(await counts(h)).toEqual(rowsBefore);
    expect(await cacheLeft(h.cache)).toHaveLength(4);
    expect(dry.kinds.find((k) => k.kind === 'pageCache')!.rows).toBe(2);
    expect(await h.repo.lease.row()).toEqual(leaseBefore);
    const real = await service(h).sweep();
    expect(real.kinds.map((k) => [k.kind, k.rows])).toEqual(dry.kinds.map((k) => [k.kind, k.rows]));
  });

  it.runIf(available)('a kind kept for ever is not touched', async () => {
    const { repo: h } = await backend.open();
    await seed(h);
    const forever = createRetention({ repo: h.repo, cache: h.cache.fetchedBefore, policy: { ...POLICY, usage: null, agentEvents: null }, now: () => T, logger: createLogger('silent'), leaseMs: 60_000, intervalMs: 0 }); // prettier-ignore
    const report = await forever.sweep();
    expect(report.kinds.find((k) => k.kind === 'usage')).toMatchObject({ days: null, line: null, rows: 0 });
    expect(await h.count('spend')).toBe(6);
    expect(await h.count('agent_events')).toBe(5);
    expect(await h.count('mcp_snapshots')).toBe(1);
  });

  it.runIf(available)(
    'two processes racing for the periodic sweep make one sweep; a held sweep refuses trawl prune',
    async () => {
      const { repo: h, second } = await backend.open();
      await seed(h);
      const a = service(h);
      const b = service(second());
      const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
      expect([ra, rb].filter((r) => r !== undefined)).toHaveLength(1);
      expect((ra ?? rb)!.kinds.find((k) => k.kind === 'mcpSnapshots')!.rows).toBe(1);
      // the next is due an interval after the end of this one, whoever asks
      const row = await h.repo.lease.row();
      expect(row.next_run_ms).toBe(T + 3_600_000);
      expect(row.owner).toBeNull();
      expect(JSON.parse(row.last_report!)).toMatchObject({ dryRun: false });
      expect(await a.tick()).toBeUndefined();
      const later = service(second(), () => T + 3_600_000);
      expect(await later.tick()).toBeDefined();

      // another process holds the sweep: trawl prune is refused and deletes nothing
      await h.exec("INSERT INTO mcp_snapshots (id, owner, tool, args_hash, body, created_ms, expires_ms) VALUES ('snap_x', 'k', 't', 'h', '{}', 0, 0)"); // prettier-ignore
      expect(await h.repo.lease.claim('someone-else', T, T + 60_000, true)).toBe(true);
      await expect(b.sweep()).rejects.toMatchObject({ tag: 'SERVICE_UNAVAILABLE' });
      expect(await h.count('mcp_snapshots', "id = 'snap_x'")).toBe(1);
      // its lease lapsed (its process died): the sweep is free again
      const afterLapse = service(second(), () => T + 120_000);
      expect((await afterLapse.sweep()).kinds.find((k) => k.kind === 'mcpSnapshots')!.rows).toBe(1);
    },
  );
});
