/** The queues' gauges on PostgreSQL (../contracts/queues.ts): every queue's COUNT/MIN in one round trip. */
import type pg from 'pg';
import { QUEUES, queueSql, type QueueGauge, type QueueName, type QueuesRepo } from '../contracts/queues.js';

export function createPgQueuesRepo(pool: pg.Pool): QueuesRepo {
  const names = Object.keys(QUEUES) as QueueName[];
  const sql = names.map((name, i) => `SELECT ${i} AS i, depth::int AS depth, oldest FROM (${queueSql(name)}) AS q${i}`).join(' UNION ALL '); // prettier-ignore
  return {
    async read(): Promise<QueueGauge[]> {
      const { rows } = await pool.query<{ i: number; depth: number; oldest: string | null }>(sql);
      return rows.map((r) => ({ queue: names[r.i]!, depth: r.depth, oldestAt: r.oldest }));
    },
    async codeSources() {
      const { rows } = await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM code_sources');
      return rows[0]?.n ?? 0;
    },
  };
}
