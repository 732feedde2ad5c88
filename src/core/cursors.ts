/**
 * Lists read a page at a time (monitors, their runs and deliveries, agent runs, the audit log, MCP
 * tasks): the opaque cursor that continues a list, and a page made from `limit + 1` stored rows.
 */
import { ServiceError } from '../errors.js';

/** One page of a list, newest first; `nextCursor` continues it. */
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor: string | null };

/**
 * List cursors: the position (`seq`) of the last item of a page, so a page never shifts when items are
 * inserted meanwhile (new ones sort before it). Opaque to callers: base64url of `<kind>:<seq>`.
 */
export function encodeCursor(kind: string, seq: number): string {
  return Buffer.from(`${kind}:${seq}`).toString('base64url');
}

/** The position a cursor stands for (+∞ without one); INVALID_REQUEST_QUERY for a cursor of another list. */
export function decodeCursor(kind: string, cursor: string | undefined): number {
  if (cursor === undefined) return Number.MAX_SAFE_INTEGER;
  const match = /^([a-z]+):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || match[1] !== kind) {
    throw new ServiceError('INVALID_REQUEST_QUERY', 'cursor: is not a nextCursor of this list', { field: 'cursor' });
  }
  return Number(match[2]);
}

/** One page of a list read with `limit + 1` rows: the first `limit`, and whether there were more. */
export function toPage<R extends { seq: number }, T>(
  kind: string,
  rows: R[],
  limit: number,
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return { data: kept.map(map), hasMore, nextCursor: hasMore && last ? encodeCursor(kind, last.seq) : null };
}
