/**
 * The upgrade to owners (SQLite migration 18, PostgreSQL migration 15): rows stored before owners existed
 * get the team of the key that made them where the row names one, else the team default; keys stored
 * without scopes keep every scope (admin included) and are listed as such by the status report, which
 * says how to narrow them. Rows stored after the upgrade get their owner's team by the same rule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { hasScope } from '../../src/core/access/scopes.js';
import { createLogger } from '../../src/lib/logger.js';
import { migrate, openDatabase } from '../../src/store/sqlite/database.js';
import { createMcpSnapshotsRepo } from '../../src/store/sqlite/mcp-snapshots.js';
import type { McpSnapshotsRepo } from '../../src/store/contracts/mcp-snapshots.js';
import type { McpTasksRepo } from '../../src/store/contracts/mcp-tasks.js';
import { createMcpTasksRepo } from '../../src/store/sqlite/mcp-tasks.js';
import { MIGRATIONS, PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { createPgMcpSnapshotsRepo, createPgMcpTasksRepo } from '../../src/store/pg/mcp.js';
import { migratePg, openPgStore } from '../../src/store/pg/database.js';
import { tempDir } from '../helpers/app.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Rows as a store before owners held them: a key of team x, the local process's, a deleted monitor's delivery. */
const BEFORE = [
  "INSERT INTO teams (id, name, created_at) VALUES ('team_x', 'x', 'T')",
  "INSERT INTO api_keys (id, name, hash, created_at, team_id) VALUES ('kx', 'of x', 'h1', 'T', 'team_x')",
  "INSERT INTO api_keys (id, name, hash, created_at) VALUES ('kold', 'old default', 'h2', 'T')",
  `INSERT INTO monitors (id, status, search, webhook_url, secret, key_id, anchor_ms, created_at, updated_at)
   VALUES ('mon_x', 'active', '{}', 'https://h/x', 's', 'kx', 0, 'T', 'T'),
          ('mon_local', 'active', '{}', 'https://h/x', 's', NULL, 0, 'T', 'T')`,
  `INSERT INTO webhook_deliveries (event_id, monitor_id, event_type, url, secret, body, status, give_up_ms, created_at)
   VALUES ('evt_x', 'mon_x', 'monitor.created', 'https://h/x', 's', '{}', 'delivered', 0, 'T'),
          ('evt_gone', 'mon_gone', 'monitor.deleted', 'https://h/x', 's', '{}', 'delivered', 0, 'T')`,
  `INSERT INTO agent_runs (id, key_id, status, request, created_at, updated_at)
   VALUES ('run_x', 'kx', 'completed', '{}', 'T', 'T'), ('run_local', '', 'completed', '{}', 'T', 'T')`,
  `INSERT INTO mcp_tasks (id, owner, tool, status, ttl_ms, poll_interval_ms, created_at, last_updated_at, updated_ms, expires_ms)
   VALUES ('task_x', 'kx', 'search', 'completed', 1, 1, 'T', 'T', 0, 0),
          ('task_local', 'local', 'search', 'completed', 1, 1, 'T', 'T', 0, 0)`,
  "INSERT INTO mcp_snapshots (id, owner, tool, args_hash, body, created_ms, expires_ms) VALUES ('snap_x', 'kx', 'search', 'h', '{}', 0, 0)",
  "INSERT INTO crawl_jobs (id, seeds, scope, state, created_at, updated_at) VALUES ('crawl_1', '[]', '{}', 'active', 'T', 'T')",
];

/** The owning team of each row after the migration. */
const AFTER = {
  monitors: { mon_x: 'team_x', mon_local: 'team_default' },
  webhook_deliveries: { evt_x: 'team_x', evt_gone: 'team_default' },
  agent_runs: { run_x: 'team_x', run_local: 'team_default' },
  mcp_tasks: { task_x: 'team_x', task_local: 'team_default' },
  mcp_snapshots: { snap_x: 'team_x' },
  crawl_jobs: { crawl_1: 'team_default' },
};
/** Stores a task and a snapshot of key kx (team x) and of the local process, through the repos. */
async function storeNewRows(tasks: McpTasksRepo, snapshots: McpSnapshotsRepo): Promise<void> {
  for (const owner of ['kx', 'local']) {
    await tasks.insert({ id: `task_new_${owner}`, owner, tool: 'search', ttlMs: 1, pollIntervalMs: 1, nowMs: 0, worker: null, leaseUntilMs: null }); // prettier-ignore
    await snapshots.insert({ id: `snap_new_${owner}`, owner, tool: 'search', argsHash: 'h', body: '{}', createdMs: 0, expiresMs: 9 }); // prettier-ignore
  }
}
/** The teams new rows get: the owner key's, as the migration gave old ones. */
const NEW_ROWS = {
  mcp_tasks: { task_new_kx: 'team_x', task_new_local: 'team_default' },
  mcp_snapshots: { snap_new_kx: 'team_x', snap_new_local: 'team_default' },
};
const idColumn = (table: string) => (table === 'webhook_deliveries' ? 'event_id' : 'id');
const teamsOf = (rows: { id: string; team_id: string }[]) => Object.fromEntries(rows.map((r) => [r.id, r.team_id]));

describe('the owners migration', () => {
  it('gives SQLite rows their key’s team, else the team default, and keeps old keys working as admin', async () => {
    const dir = tempDir('trawl-owners-');
    cleanups.push(dir.cleanup);
    const db = openDatabase(
      dir.dir,
      MIGRATIONS.filter((m) => m.version <= 17),
    );
    for (const sql of BEFORE) db.exec(sql);
    migrate(db, MIGRATIONS);
    for (const [table, teams] of Object.entries(AFTER)) {
      const rows = db.prepare(`SELECT ${idColumn(table)} AS id, team_id FROM ${table}`).all() as { id: string; team_id: string }[]; // prettier-ignore
      expect(teamsOf(rows), table).toEqual(teams);
    }
    await storeNewRows(createMcpTasksRepo(db), createMcpSnapshotsRepo(db));
    for (const [table, teams] of Object.entries(NEW_ROWS)) {
      const rows = db.prepare(`SELECT id, team_id FROM ${table} WHERE id LIKE '%_new_%'`).all() as { id: string; team_id: string }[]; // prettier-ignore
      expect(teamsOf(rows), table).toEqual(teams);
    }
    db.close();

    const app = createApp(loadConfig({}, { dataDir: dir.dir, logLevel: 'silent' }), { logger: createLogger('silent') });
    cleanups.push(() => app.close());
    const old = await app.services.keys.callerOf('kold');
    expect(old?.scopes).toBeNull(); // stored without scopes: every scope, as before the upgrade
    expect(hasScope(old!.scopes, 'admin')).toBe(true);
    const report = await app.services.status.report();
    expect(report.keys.admins).toEqual(
      expect.arrayContaining([
        { id: 'kx', name: 'of x', teamId: 'team_x', legacy: true },
        { id: 'kold', name: 'old default', teamId: 'team_default', legacy: true },
      ]),
    );
    const note = report.nextSteps.find((s) => /made without --scopes/.test(s.message));
    expect(note?.message).toMatch(/2 keys .* hold admin/);
    expect(note?.fix).toMatch(/trawl keys update ID --scopes/);
  });

  it.runIf(pgReachable)('gives PostgreSQL rows their key’s team the same way', async () => {
    const schema = `owners_${process.pid}_${Date.now().toString(36)}`;
    const store = await openPgStore(TEST_DATABASE_URL, { schema, migrations: PG_MIGRATIONS.filter((m) => m.version <= 14), max: 2 }); // prettier-ignore
    cleanups.push(async () => {
      await store.pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await store.close();
    });
    for (const sql of BEFORE) await store.pool.query(sql);
    await migratePg(store.pool, PG_MIGRATIONS);
    for (const [table, teams] of Object.entries(AFTER)) {
      const { rows } = await store.pool.query<{ id: string; team_id: string }>(`SELECT ${idColumn(table)} AS id, team_id FROM ${table}`); // prettier-ignore
      expect(teamsOf(rows), table).toEqual(teams);
    }
    await storeNewRows(createPgMcpTasksRepo(store.pool), createPgMcpSnapshotsRepo(store.pool));
    for (const [table, teams] of Object.entries(NEW_ROWS)) {
      const { rows } = await store.pool.query<{ id: string; team_id: string }>(`SELECT id, team_id FROM ${table} WHERE id LIKE '%_new_%'`); // prettier-ignore
      expect(teamsOf(rows), table).toEqual(teams);
    }
  });
});
