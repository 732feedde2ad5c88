/**
 * Which store a Trawl serves, as a short fingerprint: `GET /health` answers it, and `trawl doctor`
 * compares it with the store it reads itself, so a doctor run against another data directory than the
 * running server's says so instead of reporting an empty index next to "Listener ok". A hash, not the
 * path or the URL, so an unauthenticated health check discloses neither.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the durable state is: the data directory, or a PostgreSQL database and schema. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
  databaseSchema?: string;
}

/** 12 hex digits that name the store: the real path of the data directory, or PostgreSQL's host, database and schema. */
export function storeIdentity(where: StoreLocation): string {
  return createHash('sha256').update(canonical(where)).digest('hex').slice(0, 12);
}

function canonical(where: StoreLocation): string {
  if (where.databaseUrl) {
    // user and password are not part of which database it is
    const url = new URL(where.databaseUrl);
    const database = url.pathname.replace(/^\//, '') || 'postgres';
    return `pg:${url.hostname}:${url.port || '5432'}/${database}#${where.databaseSchema ?? 'public'}`;
  }
  return `sqlite:${realPath(where.dataDir)}`;
}

function realPath(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir); // not made yet
  }
}
