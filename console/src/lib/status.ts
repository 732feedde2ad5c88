/** The shape of `GET /status` the overview and index pages read (src/schemas/status.schema.ts). */

export interface Check {
  name: string;
  configured: boolean;
  state: 'ok' | 'failed' | 'unverified' | 'skipped' | 'off';
  detail: string;
  url?: string;
  model?: string;
  ms?: number;
}

export interface StatusReport {
  version: string;
  checkedAt: string;
  ok: boolean;
  dataDir: { path: string; bytes: number; writable: boolean; problem?: string; databaseProblem?: string };
  store: {
    backend: 'sqlite' | 'postgres';
    version: string;
    url?: string;
    replicas?: { id: string; host: string; pid: number; version: string; startedAt: string; seenAt: string; behind: number; lagMs: number }[]; // prettier-ignore
    problem?: string;
  };
  index: {
    documents: number;
    searchable: number;
    embeddedChunks: number;
    code: { chunks: number; files: number; sources: number };
    collections: { name: string | null; documents: number }[];
    collectionCount: number;
  };
  keys: { active: number; revoked: number };
  providers: { webSearch: Check[]; model: Check; embeddings: Check; browser: Check; codeModel: Check };
  listener: Check & { host: string; port: number };
  signIn: Check[];
  nextSteps: { level: 'broken' | 'note'; message: string; fix?: string }[];
}

/** Every check of the report, in the order doctor prints them. */
export function checksOf(report: StatusReport): Check[] {
  const p = report.providers;
  return [...p.webSearch, p.model, p.embeddings, p.browser, p.codeModel, report.listener, ...report.signIn];
}
