/**
 * The console's sessions on PostgreSQL: the same contract as SQLite's (../sqlite/console-sessions.ts),
 * shared by every replica, so a session begun on one is honoured by the others.
 */
import type pg from 'pg';
import type { ConsoleSessionRow, ConsoleSessionsRepo } from '../contracts/console-sessions.js';
import { first, rowCountOf } from './sql.js';

interface Stored extends Omit<ConsoleSessionRow, 'scopes'> {
  scopes: string | null;
}

const COLUMNS = `id_hash AS "idHash", key_id AS "keyId", team_id AS "teamId", csrf, scopes,
  created_ms::float8 AS "createdMs", expires_ms::float8 AS "expiresMs", last_seen_ms::float8 AS "lastSeenMs"`;

export function createPgConsoleSessionsRepo(pool: pg.Pool): ConsoleSessionsRepo {
  return {
    async insert(r) {
      await pool.query(
        `INSERT INTO console_sessions (id_hash, key_id, team_id, csrf, scopes, created_ms, expires_ms, last_seen_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          r.idHash,
          r.keyId,
          r.teamId,
          r.csrf,
          r.scopes ? r.scopes.join(',') : null,
          r.createdMs,
          r.expiresMs,
          r.lastSeenMs,
        ],
      );
    },
    async get(idHash) {
      const row = await first<Stored>(pool, `SELECT ${COLUMNS} FROM console_sessions WHERE id_hash = $1`, [idHash]);
      return row && { ...row, scopes: row.scopes === null ? null : row.scopes.split(',').filter(Boolean) };
    },
    async touch(idHash, lastSeenMs, expiresMs) {
      await pool.query('UPDATE console_sessions SET last_seen_ms = $2, expires_ms = $3 WHERE id_hash = $1', [
        idHash,
        lastSeenMs,
        expiresMs,
      ]);
    },
    delete: async (idHash) =>
      rowCountOf(await pool.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash])) > 0,
    deleteForKey: async (keyId) =>
      rowCountOf(await pool.query('DELETE FROM console_sessions WHERE key_id = $1', [keyId])),
    deleteForTeam: async (teamId) =>
      rowCountOf(await pool.query('DELETE FROM console_sessions WHERE team_id = $1', [teamId])),
    deleteExpired: async (nowMs) =>
      rowCountOf(await pool.query('DELETE FROM console_sessions WHERE expires_ms < $1', [nowMs])),
  };
}
