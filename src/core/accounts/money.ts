/**
 * Money in the accounts layer is integer micro-dollars (1 $ = 1,000,000), so sums and comparisons are
 * exact; prices elsewhere are dollars (floats rounded to a millionth), converted at the edge.
 */
import { ServiceError } from '../../errors.js';

/** Micro-dollars in a dollar. */
export const MICROS_PER_DOLLAR = 1_000_000;

/** Dollars as integer micro-dollars (rounded). */
export const toMicros = (dollars: number): number => Math.round(dollars * MICROS_PER_DOLLAR);
/** Micro-dollars as dollars. */
export const toDollars = (micros: number): number => micros / MICROS_PER_DOLLAR;

/** `"12.50"`, `"$12.50"` or `"0.005"` as micro-dollars; INVALID_REQUEST naming `field` otherwise. */
export function parseDollars(text: string, field: string): number {
  const match = /^\$?(\d{1,9})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) {
    throw new ServiceError(
      'INVALID_REQUEST',
      `${field}: must be an amount in dollars such as 10 or 2.50 (got "${text}")`,
      { field },
    );
  }
  return Number(match[1]) * MICROS_PER_DOLLAR + Number((match[2] ?? '').padEnd(6, '0'));
}

/** `$12.50`, `$0.005`: dollars with at least two decimals and no trailing zeros beyond them. */
export function formatDollars(micros: number): string {
  const text = (micros / MICROS_PER_DOLLAR).toFixed(6).replace(/(\.\d\d\d*?)0+$/, '$1');
  return text.startsWith('-') ? `-$${text.slice(1)}` : `$${text}`;
}
