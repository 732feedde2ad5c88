/**
 * The contract of the status report's store reads (`trawl doctor`, `GET /status`): what the store
 * holds, read in one go (sqlite/status.ts, pg/status.ts).
 */

/** Sizes of the document store, the search and code indexes, and the keys. */
export interface StoreCounts {
  documents: number;
  searchable: number;
  embeddedChunks: number;
  codeChunks: number;
  codeFiles: number;
  codeSources: number;
  collections: { name: string | null; documents: number }[];
  collectionCount: number;
  activeKeys: number;
  revokedKeys: number;
  /** Active keys that hold `admin` (every team); `legacy`: stored without scopes, so holding every one. */
  adminKeys: AdminKey[];
}

/** An active key that holds `admin`, as the status report lists it. */
export interface AdminKey {
  id: string;
  name: string;
  teamId: string;
  /** Made before keys were least-privilege (no scopes stored): it holds admin without having asked for it. */
  legacy: boolean;
}

/** A replica of a PostgreSQL deployment, as the status report lists it (src/store/pg/replicas.ts). */
export interface ReplicaStatus {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: string;
  seenAt: string;
  /** Documents in the shared store its index does not hold yet. */
  behind: number;
  /** How long it has been behind, in ms (0 when it is not). */
  lagMs: number;
}

/** Where the durable state is: the engine, its version, and with PostgreSQL the replicas seen recently. */
export interface StoreStatus {
  backend: 'sqlite' | 'postgres';
  /** The engine's version: SQLite's library, or the PostgreSQL server's. */
  version: string;
  /** PostgreSQL: the server without credentials, the schema, and its migration version. */
  url?: string;
  schema?: string;
  schemaVersion?: number;
  /** PostgreSQL: replicas whose heartbeat is at most five minutes old, newest first. */
  replicas?: ReplicaStatus[];
  /** Why the store could not be reached or read, when it could not. */
  problem?: string;
}

/** The counts and store facts a status report needs. */
export interface StatusRepo {
  /** Every count, read in one transaction. */
  counts(): Promise<StoreCounts>;
  /** The store's engine and version (and replicas, with PostgreSQL). */
  store(): Promise<StoreStatus>;
}

/** The admin keys of rows `{id, name, team_id, legacy}` (legacy as 0/1 or a boolean). */
export const toAdminKeys = (rows: { id: string; name: string; team_id: string; legacy: number | boolean }[]) =>
  rows.map((r) => ({ id: r.id, name: r.name, teamId: r.team_id, legacy: Boolean(r.legacy) }));
