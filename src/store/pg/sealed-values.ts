/** The store's sealed values on PostgreSQL (contract: ../contracts/sealed-values.ts). */
import type pg from 'pg';
import { SEALED_COLUMNS, type SealedTable, type SealedValuesRepo } from '../contracts/sealed-values.js';
import { changed, rowsOf } from './sql.js';

export function createPgSealedValuesRepo(pool: pg.Pool): SealedValuesRepo {
  const tables = Object.entries(SEALED_COLUMNS) as [SealedTable, { key: string; column: string }][];
  return {
    async list() {
      const out = [];
      for (const [table, c] of tables) {
        const rows = await rowsOf<{ key: string; sealed: string }>(pool, `SELECT ${c.key}::text AS key, ${c.column} AS sealed FROM ${table} ORDER BY ${c.key}`); // prettier-ignore
        out.push(...rows.map((r) => ({ table, ...r })));
      }
      return out;
    },
    async replace(value, sealed) {
      const c = SEALED_COLUMNS[value.table];
      return changed(await pool.query(`UPDATE ${value.table} SET ${c.column} = $1 WHERE ${c.key}::text = $2 AND ${c.column} = $3`, [sealed, value.key, value.sealed])); // prettier-ignore
    },
  };
}
