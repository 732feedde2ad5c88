/**
 * The status report of a data directory without a running app (`trawl doctor`): it opens the database
 * only if there is one, so checking a new installation creates nothing, and closes what it opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createApiClient } from '../../fetch/api-client.js';
import { DEFAULT_USER_AGENT } from '../../fetch/fetcher.js';
import { DATABASE_FILE, openDatabase, type Db } from '../../store/database.js';
import { createStatusRepo, type StatusRepo } from '../../store/status.repo.js';
import { createStatusService, type StatusReport, type StatusSettings } from './status.service.js';

/** The store of the data directory, if it has a database; one that cannot be opened reports why. */
function openStore(dataDir: string): { store?: StatusRepo; db?: Db } {
  if (!fs.existsSync(path.join(dataDir, DATABASE_FILE))) return {};
  try {
    const db = openDatabase(dataDir);
    return { db, store: createStatusRepo(db) };
  } catch (err) {
    return { store: { counts: () => Promise.reject(err instanceof Error ? err : new Error(String(err))) } };
  }
}

/** The report of these settings: the same service `GET /status` runs, on this process's own client. */
export async function offlineReport(settings: StatusSettings & { userAgent?: string }): Promise<StatusReport> {
  const client = createApiClient({ userAgent: settings.userAgent ?? DEFAULT_USER_AGENT });
  const { store, db } = openStore(settings.dataDir);
  try {
    return await createStatusService({ settings, getJson: client.getJson, store }).report();
  } finally {
    db?.close();
    await client.close();
  }
}
