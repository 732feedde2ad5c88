/**
 * The status report of one Trawl installation, as `trawl doctor` prints it and `GET /status` answers it:
 * plain data, free of secrets (URLs pass through `publicUrl`, texts through `scrub`).
 */
import type { RuntimeStatus } from './node-line.js';

/**
 * How a check came out: `ok`; `failed` (configured, and broken: the exit code of `trawl doctor` is 1);
 * `unverified` (it answers, but the free check could not confirm it works); `skipped` (not checked,
 * since any call would be billed); `off` (not configured, or nothing listens).
 */
export type CheckState = 'ok' | 'failed' | 'unverified' | 'skipped' | 'off';

/** One provider or listener check. */
export interface Check {
  /** `searxng`, `brave`, `upstream`, `model`, `embeddings`, `browser`, `codeModel`, `listener`; sign-in: `server`, `issuer`, `oidc`. */
  name: string;
  configured: boolean;
  state: CheckState;
  /** What was found, in words. */
  detail: string;
  /** The endpoint, without credentials or secret query parameters. */
  url?: string;
  /** The model named in the settings (model and embeddings). */
  model?: string;
  /** How long the check took, in ms (only for checks that made a call). */
  ms?: number;
}

/** The data directory: where it is, whether Trawl can write there, how much it holds. */
export interface DataDirStatus {
  path: string;
  exists: boolean;
  writable: boolean;
  /** Whether its database (`trawl.sqlite`) exists yet. */
  database: boolean;
  /** Bytes of every file in it (a lower bound when `sizeCapped`). */
  bytes: number;
  sizeCapped: boolean;
  /** Why it cannot be written, when it cannot. */
  problem?: string;
  /** Why its database cannot be opened or read, when it cannot. */
  databaseProblem?: string;
}

import type { AdminKey, StoreStatus } from '../../store/contracts/status.js';

export type { AdminKey, ReplicaStatus, StoreStatus } from '../../store/contracts/status.js';

/** What the store holds; zeros when there is no database yet. */
export interface IndexStatus {
  documents: number;
  /** Documents in the search index (fewer than `documents` after an interrupted rebuild). */
  searchable: number;
  /** Document chunks with embeddings (semantic search), over every embeddings model used. */
  embeddedChunks: number;
  code: { chunks: number; files: number; sources: number };
  /** Documents per collection, largest first (`null`: fetched pages, which have none); at most 50. */
  collections: { name: string | null; documents: number }[];
  /** How many collections there are in all. */
  collectionCount: number;
}

/**
 * API keys by state, the active keys that hold `admin` (they administer every team), and the first-key
 * file when it is still on disk (its path, never its content).
 */
export interface KeysStatus {
  active: number;
  revoked: number;
  admins: AdminKey[];
  firstKeyFile: string | null;
}

/** A thing to do: `broken` (configured and failing) or `note` (missing or worth knowing), with the fix. */
export interface NextStep {
  level: 'broken' | 'note';
  message: string;
  /** The command or settings that fix it. */
  fix?: string;
}

/** The whole report. `ok` is false exactly when some step is `broken`. */
export interface StatusReport {
  version: string;
  checkedAt: string;
  ok: boolean;
  dataDir: DataDirStatus;
  /** Where the durable state is: SQLite in the data directory, or PostgreSQL with its replicas. */
  store: StoreStatus;
  index: IndexStatus;
  keys: KeysStatus;
  providers: {
    webSearch: Check[];
    model: Check;
    embeddings: Check;
    browser: Check;
    /** Trawl's code model: loaded or ready (ok), missing (/context ranks by words), or off. */
    codeModel: Check;
  };
  /** `otherStore`: a Trawl answers there, but it serves another data directory or database than this report reads. */
  listener: Check & { host: string; port: number; otherStore?: boolean };
  /**
   * How people sign in besides API keys: `server` (Trawl's own authorization server, TRAWL_OAUTH),
   * `issuer` (an external one, TRAWL_AUTH_ISSUER), `oidc` (the organisation's, TRAWL_OIDC_ISSUER).
   */
  signIn: Check[];
  /** The Node.js line this process runs on, and whether it is supported and still maintained. */
  runtime: RuntimeStatus;
  nextSteps: NextStep[];
}
