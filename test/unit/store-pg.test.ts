// The PostgreSQL store's migrations on a real server (a schema of its own per test): applied once when
// several processes start together, again as a no-op, and refused on a schema newer than the code.
import { afterEach, describe, expect, it } from 'vitest';
import { migratePg, openPgStore } from '../../src/store/pg/pg-store.js';
import { PG_MIGRATIONS } from '../../src/store/pg/pg-migrations.js';
import { TEST_DATABASE_URL, freshPgStore, pgReachable } from '../helpers/postgres.js';

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (drops.length) await drops.pop()!();
});

describe.runIf(pgReachable)('PostgreSQL store', () => {
  it('applies each migration once when replicas start together, and again as a no-op', async () => {
    const first = await freshPgStore();
    drops.push(first.drop);
    const version = async () =>
      (await first.pool.query('SELECT version FROM trawl_schema')).rows as { version: number }[];
    expect(await version()).toEqual([{ version: PG_MIGRATIONS.at(-1)!.version }]);
    // four more "replicas" on the same schema at once, then one more later
    const more = await Promise.all(Array.from({ length: 4 }, () => openPgStore(TEST_DATABASE_URL, { schema: first.schema, max: 1 }))); // prettier-ignore
    for (const s of more) await s.close();
    await migratePg(first.pool, PG_MIGRATIONS);
    expect(await version()).toEqual([{ version: PG_MIGRATIONS.at(-1)!.version }]);
    const teams = await first.pool.query('SELECT id FROM teams');
    expect(teams.rows).toEqual([{ id: 'team_default' }]);
  });

  it('refuses a schema newer than it knows, saying so', async () => {
    const store = await freshPgStore();
    drops.push(store.drop);
    await store.pool.query('UPDATE trawl_schema SET version = version + 1');
    await expect(openPgStore(TEST_DATABASE_URL, { schema: store.schema, max: 1 })).rejects.toThrow(
      /is newer than this Trawl understands.*upgrade Trawl/,
    );
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPgStore(TEST_DATABASE_URL, { schema: 'x; DROP TABLE y' })).rejects.toThrow(
      /Invalid PostgreSQL schema name/,
    );
  });
});
