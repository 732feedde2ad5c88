/** The queues' gauges on SQLite (../contracts/queues.ts): one prepared COUNT/MIN per queue, in one read transaction. */
import type { Db } from './database.js';
import { QUEUES, queueSql, type QueueGauge, type QueueName, type QueuesRepo } from '../contracts/queues.js';

export function createQueuesRepo(db: Db): QueuesRepo {
  const names = Object.keys(QUEUES) as QueueName[];
  const statements = names.map((name) => [name, db.prepare(queueSql(name))] as const);
  const sources = db.prepare('SELECT COUNT(*) FROM code_sources').pluck();
  const read = db.transaction((): QueueGauge[] =>
    statements.map(([queue, statement]) => {
      const row = statement.get() as { depth: number; oldest: string | null };
      return { queue, depth: Number(row.depth), oldestAt: row.oldest };
    }),
  );
  return {
    read: async () => read(),
    codeSources: async () => Number(sources.get() ?? 0),
  };
}
