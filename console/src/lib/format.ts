/** How numbers, dollars, durations and times read on every page. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12,345. */
export function count(n: number | null | undefined): string {
  return n == null ? '—' : integer.format(n);
}

/** $0.0123, $1,234.50: up to four decimals, more significant ones below a cent. */
export function dollars(n: number | null | undefined): string {
  if (n == null) return '—';
  const options: Intl.NumberFormatOptions =
    n !== 0 && Math.abs(n) < 0.01
      ? { maximumSignificantDigits: 3 }
      : { minimumFractionDigits: 2, maximumFractionDigits: 4 };
  return `$${n.toLocaleString('en-US', options)}`;
}

/** 850 ms, 2.4 s. */
export function duration(ms: number | null | undefined): string {
  if (ms == null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A server timestamp as the reader's local date and time (the ISO string stays in `dateTime`). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** YYYY-MM-DD of a date, in UTC (the usage routes count UTC days). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `value` as readable JSON. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
