/**
 * The contract of the store's sealed values (sqlite/sealed-values.ts, pg/sealed-values.ts): every value
 * sealed with the operator key, wherever it lives (monitors' and deliveries' webhook secrets, the
 * authorization server's keys), listed and replaced one by one when the key is rotated
 * (`trawl secrets reseal`).
 */

/** The tables that hold sealed values. */
export type SealedTable = 'monitors' | 'webhook_deliveries' | 'sealed_secrets';

/** One sealed value: its table, its row's key, and the sealed text. */
export interface SealedValue {
  table: SealedTable;
  key: string;
  sealed: string;
}

export interface SealedValuesRepo {
  /** Every sealed value of the store. */
  list(): Promise<SealedValue[]>;
  /** Replaces a value's sealed text when it is still `value.sealed`; false otherwise (changed meanwhile). */
  replace(value: SealedValue, sealed: string): Promise<boolean>;
}

/** Each table's sealed column and the column naming its row, the same in both dialects. */
export const SEALED_COLUMNS: Readonly<Record<SealedTable, { key: string; column: string }>> = {
  monitors: { key: 'id', column: 'secret' },
  webhook_deliveries: { key: 'seq', column: 'secret' },
  sealed_secrets: { key: 'name', column: 'sealed' },
};
