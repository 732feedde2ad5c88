/**
 * The contract of the replicas seen: each serving replica's heartbeat (who it is, where it stands in
 * the document log), listed by `trawl doctor` and `GET /status` (PostgreSQL: pg/replicas.ts).
 */
import type { ReplicaStatus } from './status.js';
import type { LogPosition } from './change-log.js';

/** What a replica says of itself at each beat. */
export interface ReplicaBeat {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: Date;
  /** Its place in the document log (null before the first document). */
  position: LogPosition | null;
  /** When it last read the log to its end (null: not yet). */
  caughtUpAt: Date | null;
}

/**
 * A replica as the status report shows it; `behind` is counted up to a million, `lagMs` runs from when it
 * last read the log to its end (or started).
 */
export type ReplicaSeen = ReplicaStatus;

export interface ReplicasRepo {
  /** Records the heartbeat; resolves to the documents it counted the replica behind (up to a million). */
  beat(b: ReplicaBeat): Promise<number>;
  /** Replicas whose last beat is at most `withinMs` old, newest first. */
  seen(withinMs: number): Promise<ReplicaSeen[]>;
}
