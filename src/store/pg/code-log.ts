/**
 * The code log over PostgreSQL: each code file's latest change (its chunks written, or the file removed)
 * and each source's, in the order replicas follow to keep their SQLite code index a copy of the shared
 * one (core/replica/code-follower.ts). Positions and the snapshot rule are the document log's
 * (change-log.ts). A change is read with the file's current state and chunks, in one statement, so
 * what a follower applies is always one whole version of the file, never older than the change.
 *
 * A touch (same bytes, new mtime) is not a change: a replica's copy keeps the chunks and hash it has,
 * and re-indexing compares with the shared files, not with a replica's.
 */
import type pg from 'pg';
import { toSource, type SourceRow } from '../contracts/code-files.js';
import { channelSql, createLogListener, logAfter, logNext, logOrder, logWindow } from './change-log.js';
import type { CodeChange, CodeLog } from '../contracts/code-log.js';

/** The `path` of a source's own row in `code_changes` (a file's path is never empty). */
export const SOURCE_ROW = '';

/** The channel code writers notify when they commit: one per schema. */
export const CODE_CHANNEL_SQL = channelSql('code');

type ChangeRow = Partial<SourceRow> & {
  source: string;
  path: string;
  xid: string;
  change_seq: number;
  size: number | null;
  mtime_ms: number | null;
  hash: string | null;
  indexed_ms: number | null;
  chunk_rows: [number, number, string, string, string | null, string | null, string][] | null;
};

// the source's row, or the file's with its chunks in line order: one snapshot for all of it
const CHANGES = `
  SELECT c.source, c.path, c.change_xid::text AS xid, c.change_seq,
         s.name, s.kind, s.location, s.indexed_at, f.size, f.mtime_ms, f.hash, f.indexed_ms,
         (SELECT json_agg(json_build_array(k.start_line, k.end_line, k.language, k.kind, k.symbol, k.doc, k.code)
                          ORDER BY k.start_line, k.end_line)
            FROM code_chunks k WHERE k.source = f.source AND k.path = f.path) AS chunk_rows
  FROM code_changes c
  LEFT JOIN code_sources s ON c.path = '${SOURCE_ROW}' AND s.name = c.source
  LEFT JOIN code_files f ON f.source = c.source AND f.path = c.path
  WHERE ${logWindow('c')}
  ORDER BY ${logOrder('c')} LIMIT $3`;

function toChange(r: ChangeRow): CodeChange | null {
  if (r.path === SOURCE_ROW) return r.name ? { kind: 'source', source: toSource(r as SourceRow) } : null;
  if (r.hash === null) return { kind: 'file', source: r.source, path: r.path, file: null };
  const chunks = (r.chunk_rows ?? []).map(([startLine, endLine, language, kind, symbol, doc, code]) => ({
    source: r.source,
    path: r.path,
    startLine,
    endLine,
    language,
    kind,
    symbol,
    doc,
    code,
  }));
  const state = { size: r.size!, mtimeMs: r.mtime_ms!, hash: r.hash };
  return { kind: 'file', source: r.source, path: r.path, file: { state, indexedAt: r.indexed_ms!, chunks } };
}

/** The code log of the store `pool` connects to; `changed` listens on a connection of its own. */
export function createPgCodeLog(pool: pg.Pool): CodeLog {
  return {
    ...createLogListener(pool, CODE_CHANNEL_SQL),
    async changesSince(after, limit) {
      const { rows } = await pool.query<ChangeRow>(CHANGES, [...logAfter(after), limit]);
      return {
        // a source's row is written with its change, in one transaction: never missing (null: no such row)
        changes: rows.map(toChange).filter((c): c is CodeChange => c !== null),
        next: logNext(rows, after),
      };
    },
  };
}
