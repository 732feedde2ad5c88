/** The console's sessions in the data directory's SQLite database (contract: ../contracts/console-sessions.ts). */
import type { Db } from './database.js';
import type { ConsoleSessionRow, ConsoleSessionsRepo } from '../contracts/console-sessions.js';

interface Stored extends Omit<ConsoleSessionRow, 'scopes'> {
  scopes: string | null;
}

const COLUMNS = `id_hash AS idHash, key_id AS keyId, team_id AS teamId, csrf, scopes, created_ms AS createdMs,
  expires_ms AS expiresMs, last_seen_ms AS lastSeenMs`;

export function createConsoleSessionsRepo(db: Db): ConsoleSessionsRepo {
  const s = {
    insert: db.prepare(
      `INSERT INTO console_sessions (id_hash, key_id, team_id, csrf, scopes, created_ms, expires_ms, last_seen_ms)
       VALUES (@idHash, @keyId, @teamId, @csrf, @scopes, @createdMs, @expiresMs, @lastSeenMs)`,
    ),
    get: db.prepare(`SELECT ${COLUMNS} FROM console_sessions WHERE id_hash = ?`),
    touch: db.prepare('UPDATE console_sessions SET last_seen_ms = ?, expires_ms = ? WHERE id_hash = ?'),
    delete: db.prepare('DELETE FROM console_sessions WHERE id_hash = ?'),
    deleteForKey: db.prepare('DELETE FROM console_sessions WHERE key_id = ?'),
    deleteForTeam: db.prepare('DELETE FROM console_sessions WHERE team_id = ?'),
    deleteExpired: db.prepare('DELETE FROM console_sessions WHERE expires_ms < ?'),
  };
  return {
    async insert(row) {
      s.insert.run({ ...row, scopes: row.scopes ? row.scopes.join(',') : null });
    },
    async get(idHash) {
      const row = s.get.get(idHash) as Stored | undefined;
      return row && { ...row, scopes: row.scopes === null ? null : row.scopes.split(',').filter(Boolean) };
    },
    async touch(idHash, lastSeenMs, expiresMs) {
      s.touch.run(lastSeenMs, expiresMs, idHash);
    },
    delete: async (idHash) => s.delete.run(idHash).changes > 0,
    deleteForKey: async (keyId) => s.deleteForKey.run(keyId).changes,
    deleteForTeam: async (teamId) => s.deleteForTeam.run(teamId).changes,
    deleteExpired: async (nowMs) => s.deleteExpired.run(nowMs).changes,
  };
}
