/**
 * Replicas seen: each serving replica writes a heartbeat (who it is, where it stands in the document
 * log), and `trawl doctor` and `GET /status` list those seen recently with how far each is behind.
 */
import type pg from 'pg';

import type { ReplicasRepo } from '../contracts/replicas.js';

/** Writes counted behind a replica's position, at most (the count stops there). */
const MAX_BEHIND = 1_000_000;

export function createPgReplicasRepo(pool: pg.Pool): ReplicasRepo {
  return {
    async beat(b) {
      const { rows } = await pool.query<{ behind: number }>(
        `INSERT INTO replicas (id, host, pid, version, started_at, seen_at, behind, caught_up_at)
         VALUES ($1, $2, $3, $4, $5, now(),
                 (SELECT COUNT(*) FROM (SELECT 1 FROM documents
                   WHERE (change_xid, change_seq) > ($6::xid8, $7::bigint) LIMIT ${MAX_BEHIND}) AS after),
                 $8)
         ON CONFLICT (id) DO UPDATE SET seen_at = now(), behind = excluded.behind,
                                        caught_up_at = excluded.caught_up_at, version = excluded.version
         RETURNING behind`,
        [b.id, b.host, b.pid, b.version, b.startedAt, b.position?.xid ?? '0', b.position?.seq ?? -1, b.caughtUpAt],
      );
      return Number(rows[0]?.behind ?? 0);
    },
    async seen(withinMs) {
      const { rows } = await pool.query<{
        id: string;
        host: string;
        pid: number;
        version: string;
        started_at: Date;
        seen_at: Date;
        behind: number;
        lag_ms: number | null;
      }>(
        `SELECT id, host, pid, version, started_at, seen_at, behind,
                (EXTRACT(EPOCH FROM (now() - COALESCE(caught_up_at, started_at))) * 1000)::bigint AS lag_ms
         FROM replicas WHERE seen_at > now() - make_interval(secs => $1 / 1000.0)
         ORDER BY seen_at DESC, id`,
        [withinMs],
      );
      return rows.map((r) => ({
        id: r.id,
        host: r.host,
        pid: r.pid,
        version: r.version,
        startedAt: r.started_at.toISOString(),
        seenAt: r.seen_at.toISOString(),
        behind: r.behind,
        lagMs: r.behind > 0 ? Math.max(0, r.lag_ms ?? 0) : 0,
      }));
    },
  };
}
