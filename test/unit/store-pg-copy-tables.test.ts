/**
 * The table list of `trawl migrate` against both schemas as they are now: every SQLite table is copied
 * or skipped with a reason, and every column of a copied table is accounted for on both sides, so a
 * column or table added to one schema fails here until copy-tables.ts says what becomes of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/sqlite/database.js';
import { writeBatchSql } from '../../src/store/pg/copy-from-sqlite.js';
import { COPIED_TABLES, sourceOf, targetOf, whySkipped } from '../../src/store/pg/copy-tables.js';
import { tempDir } from '../helpers/app.js';
import { freshPgStore, pgReachable } from '../helpers/postgres.js';

let db: Db;
let cleanup: () => void;
beforeAll(() => {
  const t = tempDir();
  cleanup = t.cleanup;
  db = openDatabase(t.dir);
});
afterAll(() => {
  db.close();
  cleanup();
});

describe('the tables trawl migrate copies', () => {
  it('copies or skips, with a reason, every table of the SQLite schema', () => {
    const copied = new Set(COPIED_TABLES.map((t) => t.name));
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name); // prettier-ignore
    const unaccounted = tables.filter((name) => !copied.has(name) && !whySkipped(name));
    expect(unaccounted).toEqual([]);
    expect(tables.filter((name) => copied.has(name) && whySkipped(name))).toEqual([]);
  });

  it('reads every SQLite column of a copied table or says why not, and keys rows by its primary key', () => {
    for (const t of COPIED_TABLES) {
      const info = db.prepare(`PRAGMA table_info(${t.name})`).all() as { name: string; pk: number }[];
      const read = [...t.columns.filter((c) => typeof c === 'string' || !c.sql).map(sourceOf), ...Object.keys(t.dropped ?? {})]; // prettier-ignore
      expect(read.sort(), t.name).toEqual(info.map((c) => c.name).sort());
      const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name); // prettier-ignore
      expect(t.key, t.name).toEqual(pk);
    }
  });

  it.skipIf(!pgReachable)(
    'writes every PostgreSQL column of a copied table, or says why it is left to its default',
    async () => {
      const store = await freshPgStore();
      try {
        for (const t of COPIED_TABLES) {
          const { rows } = await store.pool.query<{ column_name: string; is_identity: string }>(
            'SELECT column_name, is_identity FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
            [store.schema, t.target ?? t.name],
          );
          const written = new Set(t.columns.map(targetOf));
          const left = rows.map((r) => r.column_name).filter((c) => !written.has(c));
          expect(
            left.filter((c) => !t.targetOnly?.[c]),
            t.name,
          ).toEqual([]);
          expect(
            [...written].filter((c) => !rows.some((r) => r.column_name === c)),
            t.name,
          ).toEqual([]);
          expect(rows.filter((r) => r.is_identity === 'YES').map((r) => r.column_name), t.name).toEqual(t.identity ? [t.identity] : []); // prettier-ignore
        }
      } finally {
        await store.drop();
      }
    },
  );

  it('rewrites a matched row only where it differs, keeping its identity and sealed secret', () => {
    const monitors = COPIED_TABLES.find((t) => t.name === 'monitors')!;
    const sql = writeBatchSql(monitors)(2);
    expect(sql).toContain('OVERRIDING SYSTEM VALUE');
    expect(sql).toContain('ON CONFLICT (id) DO UPDATE SET');
    expect(sql).toMatch(/\$36\)\s+ON CONFLICT/); // two rows of 18 columns
    const set = sql.slice(sql.indexOf('DO UPDATE SET'));
    expect(set).not.toMatch(/\bsecret = /);
    expect(set).not.toMatch(/\bseq = /);
    expect(set).toMatch(/WHERE \(monitors\.name, .*\) IS DISTINCT FROM \(excluded\.name, /);
    const docs = writeBatchSql(COPIED_TABLES.find((t) => t.name === 'documents')!)(1);
    expect(docs).toContain("change_seq = nextval('documents_change_seq')");
  });

  it('maps a column renamed or converted between the schemas', () => {
    const sql = writeBatchSql({ name: 'things', key: ['id'], columns: ['id', { source: 'flag', target: 'enabled', convert: Boolean }] })(1); // prettier-ignore
    expect(sql).toMatch(/INSERT INTO things \(id, enabled\) VALUES \(\$1, \$2\)/);
    expect(sql).toContain('enabled = excluded.enabled');
  });
});
