/**
 * `trawl backup` and `trawl restore` (issue 37): a data directory's databases in one tar file with a
 * manifest, and back. The backup copies each database with SQLite's online backup API while a server may
 * be writing; the restore checks everything it can (checksums, the manifest, `PRAGMA integrity_check`,
 * the schema, the counts, the webhook secrets' key, that no process has the directory open) in a
 * directory beside the target before it replaces a single file. It opens SQLite files directly, so it
 * is part of the composition root (like ./migrate.ts); the CLI door is src/cli/backup.command.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { createTarWriter } from '../lib/tar.js';
import { VERSION } from '../version.js';
import { DATABASE_FILE } from '../store/sqlite/database.js';
import { CACHE_FILE } from '../store/sqlite/cache.js';
import { copyDatabase, factsOf } from '../store/sqlite/backup.js';
import {
  BACKUP_FORMAT,
  besides,
  type BackupManifest,
  type BackupProgress,
  type ManifestFile,
} from './backup-manifest.js';

export { restoreBackup, type RestoreOptions, type RestoreReport } from './restore.js';
export type { BackupManifest, BackupProgress } from './backup-manifest.js';

export interface BackupOptions {
  dataDir: string;
  /** The archive to write. */
  to: string;
  /** Include the page cache (`cache.sqlite`). */
  withCache?: boolean;
  /** Replace `to` when it exists. */
  force?: boolean;
  onProgress?: (p: BackupProgress) => void;
}

export interface BackupReport {
  manifest: BackupManifest;
  /** The archive's size in bytes. */
  bytes: number;
  /** What was asked and could not be included (the cache when the directory has none). */
  missing: string[];
}

/** The files a backup never holds: the operator keeps them apart (secret.key) or they are one-time (first-api-key). */
export const NEVER_BACKED_UP = ['secret.key', 'first-api-key'] as const;

const sha256Hex = (hash: ReturnType<typeof createHash>) => hash.digest('hex');

function checkTarget(to: string, force: boolean): void {
  if (!fs.existsSync(path.dirname(to))) throw new Error(`--to: the folder ${path.dirname(to)} does not exist`);
  if (!fs.existsSync(to)) return;
  if (fs.statSync(to).isDirectory()) throw new Error(`--to: ${to} is a folder; name the backup file`);
  if (!force) throw new Error(`--to: ${to} exists; choose another name, or add --force to replace it`);
}

/**
 * Writes the backup of `dataDir` to `to`: the databases copied into a private folder beside `to`, then
 * the archive written under a temporary name (mode 0600) and renamed into place, so `to` is never a
 * half-written backup. Throws, naming the option, on a directory that is not a Trawl data directory or
 * an existing `to` without `force`.
 */
export async function createBackup(options: BackupOptions): Promise<BackupReport> {
  const dataDir = path.resolve(options.dataDir);
  const to = path.resolve(options.to);
  const store = path.join(dataDir, DATABASE_FILE);
  if (!fs.existsSync(store)) throw new Error(`--data-dir: ${dataDir} holds no ${DATABASE_FILE}: it is not a Trawl data directory`); // prettier-ignore
  checkTarget(to, options.force === true);
  const cache = path.join(dataDir, CACHE_FILE);
  const missing = options.withCache && !fs.existsSync(cache) ? [CACHE_FILE] : [];
  const sources = [store, ...(options.withCache && missing.length === 0 ? [cache] : [])];
  const staging = besides(to, 'staging');
  ensurePrivateDir(staging);
  try {
    const staged: { name: string; file: string }[] = [];
    for (const source of sources) {
      const name = path.basename(source);
      const file = path.join(staging, name);
      await copyDatabase(source, file, (p) => options.onProgress?.({ phase: 'copy', file: name, ...p }));
      staged.push({ name, file });
    }
    const facts = staged.map(({ name, file }) => ({ name, ...factsOf(file, name === CACHE_FILE ? 'cache' : 'trawl') }));
    const manifest: Omit<BackupManifest, 'files'> = {
      format: BACKUP_FORMAT,
      formatVersion: 1,
      trawlVersion: VERSION,
      createdAt: new Date().toISOString(),
      schemaVersion: facts[0]!.schemaVersion,
      counts: Object.assign({}, ...facts.map((f) => f.counts)) as Record<string, number>,
      sealedWebhookSecrets: facts[0]!.sealedWebhookSecrets,
      excluded: [...NEVER_BACKED_UP],
    };
    const { bytes, files } = await writeArchive(to, staged, manifest, options);
    return { manifest: { ...manifest, files }, bytes, missing };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Writes the archive under a temporary name beside `to`, then renames it into place; its size. */
async function writeArchive(
  to: string,
  staged: { name: string; file: string }[],
  head: Omit<BackupManifest, 'files'>,
  options: BackupOptions,
): Promise<{ bytes: number; files: ManifestFile[] }> {
  const temp = besides(to, 'partial');
  const out = await fsp.open(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    const tar = createTarWriter(out);
    const files: ManifestFile[] = [];
    for (const { name, file } of staged) {
      const input = await fsp.open(file, 'r');
      try {
        const { size } = await input.stat();
        const hash = createHash('sha256');
        let done = 0;
        await tar.add(name, input, size, (chunk) => {
          hash.update(chunk);
          done += chunk.length;
          options.onProgress?.({ phase: 'archive', file: name, done, total: size });
        });
        files.push({ name, bytes: size, sha256: sha256Hex(hash) });
      } finally {
        await input.close();
      }
    }
    await tar.addBuffer('manifest.json', Buffer.from(`${JSON.stringify({ ...head, files }, null, 2)}\n`));
    await tar.end();
    await out.sync();
    await out.close();
    await fsp.chmod(temp, PRIVATE_FILE_MODE); // whatever the umask
    await fsp.rename(temp, to);
    return { bytes: (await fsp.stat(to)).size, files };
  } catch (err) {
    await out.close().catch(() => undefined);
    await fsp.rm(temp, { force: true });
    throw err;
  }
}
