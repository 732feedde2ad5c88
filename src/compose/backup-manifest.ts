/**
 * The manifest of a `trawl backup` archive (`manifest.json`, its last entry) and its check: what the
 * archive holds, each file's size and SHA-256, the schema, and counts to compare after a restore.
 */

import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** A temporary name beside `file`, on its file system, so that a rename puts it in place at once. */
export const besides = (file: string, what: string) =>
  path.join(path.dirname(file), `.${path.basename(file)}.${what}-${randomBytes(6).toString('hex')}`);

export const BACKUP_FORMAT = 'trawl-backup';

/** The files an archive may hold besides the manifest. */
export const ARCHIVED_FILES = ['trawl.sqlite', 'cache.sqlite'] as const;

export interface ManifestFile {
  name: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** The archive's layout; a reader refuses a version it does not know. */
  formatVersion: 1;
  trawlVersion: string;
  createdAt: string;
  /** `trawl.sqlite`'s schema version (`PRAGMA user_version`). */
  schemaVersion: number;
  files: ManifestFile[];
  /** Documents, API keys, teams, monitors, code chunks, agent runs (and cache entries with the cache). */
  counts: Record<string, number>;
  /** Monitors' and pending deliveries' webhook secrets, sealed under the operator key. */
  sealedWebhookSecrets: number;
  /** What a backup never holds. */
  excluded: string[];
}

/** What a backup or restore is doing: pages copied, bytes archived or checked. */
export interface BackupProgress {
  phase: 'copy' | 'archive' | 'extract' | 'verify';
  file: string;
  done: number;
  total: number;
}

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

/** The manifest in `text`; throws naming the first field at fault. */
export function parseManifest(text: string): BackupManifest {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('manifest.json is not JSON');
  }
  const bad = (field: string, why: string) => new Error(`manifest.json: ${field} ${why}`);
  if (typeof m !== 'object' || m === null) throw bad('(the whole file)', 'is not an object');
  if (m.format !== BACKUP_FORMAT) throw bad('format', `must be "${BACKUP_FORMAT}"`);
  if (m.formatVersion !== 1) {
    throw bad('formatVersion', `is ${JSON.stringify(m.formatVersion)}; this Trawl reads version 1 (upgrade Trawl)`);
  }
  if (!isCount(m.schemaVersion)) throw bad('schemaVersion', 'must be a whole number');
  if (!isCount(m.sealedWebhookSecrets)) throw bad('sealedWebhookSecrets', 'must be a whole number');
  if (typeof m.counts !== 'object' || m.counts === null || !Object.values(m.counts).every(isCount)) {
    throw bad('counts', 'must map names to whole numbers');
  }
  if (!Array.isArray(m.files) || m.files.length === 0) throw bad('files', 'must list the archived files');
  const names = new Set<string>();
  for (const [i, f] of (m.files as Record<string, unknown>[]).entries()) {
    if (!ARCHIVED_FILES.includes(f?.name as (typeof ARCHIVED_FILES)[number])) {
      throw bad(`files[${i}].name`, `must be one of ${ARCHIVED_FILES.join(', ')}`);
    }
    if (names.has(f.name as string)) throw bad(`files[${i}].name`, 'is listed twice');
    names.add(f.name as string);
    if (!isCount(f.bytes)) throw bad(`files[${i}].bytes`, 'must be a whole number');
    if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw bad(`files[${i}].sha256`, 'must be 64 hex characters');
    }
  }
  if (!names.has('trawl.sqlite')) throw bad('files', 'must include trawl.sqlite');
  return m as unknown as BackupManifest;
}
