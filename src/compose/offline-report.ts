/**
 * The status report of a data directory without a running app (`trawl doctor`): it opens the database
 * only if there is one, so checking a new installation creates nothing, and closes what it opened. With
 * `TRAWL_DATABASE_URL` it reads the shared PostgreSQL store too, without migrating it. It opens the
 * stores itself, so it is part of the composition root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createApiClient } from '../fetch/api-client.js';
import { DEFAULT_USER_AGENT } from '../fetch/fetcher.js';
import { redactUrl } from '../lib/redact.js';
import { DATABASE_FILE, openDatabase, type Db } from '../store/sqlite/database.js';
import { connectPg } from '../store/pg/database.js';
import { createPgStatusRepo } from '../store/pg/status.js';
import { createStatusRepo } from '../store/sqlite/status.js';
import { createStatusService, type StatusReport, type StatusSettings } from '../core/status/status.service.js';
import type { StatusRepo, StoreStatus } from '../store/contracts/status.js';

/** The store of the data directory, if it has a database; one that cannot be opened reports why. */
function openStore(dataDir: string): { store?: StatusRepo; db?: Db } {
  if (!fs.existsSync(path.join(dataDir, DATABASE_FILE))) return {};
  try {
    const db = openDatabase(dataDir);
    return { db, store: createStatusRepo(db) };
  } catch (err) {
    const problem = () => Promise.reject(err instanceof Error ? err : new Error(String(err)));
    return { store: { counts: problem, store: problem } };
  }
}

/** The settings a report of a PostgreSQL deployment reads besides the others. */
export interface SharedStoreSettings {
  databaseUrl?: string;
  databaseSchema?: string;
}

/** The report of these settings: the same service `GET /status` runs, on this process's own client. */
export async function offlineReport(
  settings: StatusSettings & SharedStoreSettings & { userAgent?: string },
): Promise<StatusReport> {
  const client = createApiClient({ userAgent: settings.userAgent ?? DEFAULT_USER_AGENT });
  const { store: local, db } = openStore(settings.dataDir);
  const schema = settings.databaseSchema ?? 'public';
  const pool = settings.databaseUrl ? connectPg(settings.databaseUrl, { schema, max: 2 }) : undefined;
  const where = settings.databaseUrl ? redactUrl(settings.databaseUrl) : '';
  const store = pool ? createPgStatusRepo(pool, { url: where, schema }, local) : local;
  const backend: StoreStatus | undefined = pool ? { backend: 'postgres', version: '', url: where, schema } : undefined;
  try {
    return await createStatusService({ settings, getJson: client.getJson, store, backend }).report();
  } finally {
    db?.close();
    await pool?.end();
    await client.close();
  }
}
