/** The store's sealed values on SQLite (contract: ../contracts/sealed-values.ts). */
import type { Db } from './database.js';
import { SEALED_COLUMNS, type SealedTable, type SealedValue, type SealedValuesRepo } from '../contracts/sealed-values.js'; // prettier-ignore

export function createSealedValuesRepo(db: Db): SealedValuesRepo {
  const tables = Object.entries(SEALED_COLUMNS) as [SealedTable, { key: string; column: string }][];
  const lists = tables.map(([table, c]) => ({
    table,
    all: db.prepare(`SELECT CAST(${c.key} AS TEXT) AS key, ${c.column} AS sealed FROM ${table} ORDER BY ${c.key}`),
  }));
  const replaces = Object.fromEntries(
    tables.map(([table, c]) => [table, db.prepare(`UPDATE ${table} SET ${c.column} = ? WHERE CAST(${c.key} AS TEXT) = ? AND ${c.column} = ?`)]), // prettier-ignore
  );
  return {
    list: async () =>
      lists.flatMap(({ table, all }) => (all.all() as { key: string; sealed: string }[]).map((r) => ({ table, ...r }))),
    replace: async (value: SealedValue, sealed: string) =>
      replaces[value.table]!.run(sealed, value.key, value.sealed).changes > 0,
  };
}
