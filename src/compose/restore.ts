/**
 * `trawl restore --from FILE --data-dir DIR`: everything is checked in a private folder beside DIR before
 * anything in DIR changes (the archive's entries and checksums, the manifest, `PRAGMA integrity_check`,
 * the schema against this code's, the counts against the manifest's, the webhook secrets against the
 * operator key), then, once no process has DIR's database open, the databases are swapped in by rename,
 * the old ones kept aside until the swap is done.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../lib/private-files.js';
import { extractTarEntry, listTar, type TarEntry } from '../lib/tar.js';
import { createSecretBox, loadOperatorKey, parsePreviousKey, readOperatorKeyFile } from '../core/monitors/secret-box.js'; // prettier-ignore
import { DATABASE_FILE } from '../store/sqlite/database.js';
import { CACHE_FILE } from '../store/sqlite/cache.js';
import { factsOf, holdExclusively, integrityProblems, LATEST_SCHEMA, sealedWebhookSecrets } from '../store/sqlite/backup.js'; // prettier-ignore
import { besides, parseManifest, type BackupManifest, type BackupProgress } from './backup-manifest.js';

export interface RestoreOptions {
  from: string;
  dataDir: string;
  /** Restore into a directory that holds a store, and despite a key that does not open the secrets. */
  force?: boolean;
  /** `TRAWL_SECRET_KEY` (else DIR/secret.key) and `TRAWL_SECRET_KEY_PREVIOUS`. */
  secretKey?: string;
  secretKeyPrevious?: string;
  onProgress?: (p: BackupProgress) => void;
}

/** Whether the operator key opens the webhook secrets the backup holds. */
export interface SecretCheck {
  sealed: number;
  opened: number;
  /** Where the key came from: the setting, DIR/secret.key, or nowhere. */
  key: 'TRAWL_SECRET_KEY' | 'secret.key' | 'none';
}

export interface RestoreReport {
  manifest: BackupManifest;
  dataDir: string;
  /** The restored schema is older than this code's: the next open migrates it. */
  migratesOnOpen: boolean;
  secrets: SecretCheck;
  /** Database files DIR held before (now replaced). */
  replaced: string[];
  /** What the operator must know (a secret that does not open, restored with --force). */
  warnings: string[];
}

/** The files a restore swaps: each database with the journal files SQLite keeps beside it. */
const SWAPPED = [DATABASE_FILE, CACHE_FILE].flatMap((f) => [f, `${f}-wal`, `${f}-shm`, `${f}-journal`]);
/** Largest manifest read (it is a few hundred bytes). */
const MANIFEST_MAX = 1 << 20;

/** What DIR holds that a restore without --force must not overwrite (a secret.key put there first is welcome). */
function occupied(dataDir: string): string[] {
  if (!fs.existsSync(dataDir)) return [];
  if (!fs.statSync(dataDir).isDirectory()) throw new Error(`--data-dir: ${dataDir} is not a folder`);
  return fs.readdirSync(dataDir).filter((name) => name !== 'secret.key');
}

async function readManifest(input: fsp.FileHandle, entries: TarEntry[]): Promise<BackupManifest> {
  const entry = entries.find((e) => e.name === 'manifest.json');
  if (!entry) throw new Error('the archive holds no manifest.json: it is not a Trawl backup');
  if (entry.size > MANIFEST_MAX) throw new Error('manifest.json is too large to be a Trawl manifest');
  const buf = Buffer.alloc(entry.size);
  await input.read(buf, 0, entry.size, entry.offset);
  const manifest = parseManifest(buf.toString('utf8'));
  const listed = new Set(['manifest.json', ...manifest.files.map((f) => f.name)]);
  const stray = entries.find((e) => !listed.has(e.name));
  if (stray) throw new Error(`the archive holds ${stray.name}, which its manifest does not list`);
  const absent = manifest.files.find((f) => !entries.some((e) => e.name === f.name));
  if (absent) throw new Error(`the archive lacks ${absent.name}, which its manifest lists`);
  return manifest;
}

function newerRefusal(version: number, where: string): Error {
  return new Error(
    `${where} has schema version ${version}, newer than this Trawl understands (${LATEST_SCHEMA}): restore it with the Trawl release that made it, or a later one`,
  );
}

/** Extracts and checks every file into `staging`; throws naming the file and what differs. */
async function extractVerified(
  input: fsp.FileHandle,
  entries: TarEntry[],
  manifest: BackupManifest,
  staging: string,
  onProgress?: (p: BackupProgress) => void,
): Promise<void> {
  for (const file of manifest.files) {
    const entry = entries.find((e) => e.name === file.name)!;
    if (entry.size !== file.bytes) {
      throw new Error(`${file.name} holds ${entry.size} bytes where the manifest says ${file.bytes}: the archive is damaged`); // prettier-ignore
    }
    const out = await fsp.open(path.join(staging, file.name), 'wx', PRIVATE_FILE_MODE);
    const hash = createHash('sha256');
    let done = 0;
    try {
      await extractTarEntry(input, entry, out, (chunk) => {
        hash.update(chunk);
        done += chunk.length;
        onProgress?.({ phase: 'extract', file: file.name, done, total: entry.size });
      });
    } finally {
      await out.close();
    }
    if (hash.digest('hex') !== file.sha256) {
      throw new Error(`${file.name}'s SHA-256 differs from the manifest's: the archive is damaged`);
    }
  }
  for (const file of manifest.files) {
    const staged = path.join(staging, file.name);
    onProgress?.({ phase: 'verify', file: file.name, done: 0, total: file.bytes });
    const problems = integrityProblems(staged);
    if (problems.length > 0) throw new Error(`${file.name} fails SQLite's integrity check: ${problems.join('; ')}`);
    const facts = factsOf(staged, file.name === CACHE_FILE ? 'cache' : 'trawl');
    if (file.name === DATABASE_FILE) {
      if (facts.schemaVersion > LATEST_SCHEMA) throw newerRefusal(facts.schemaVersion, DATABASE_FILE);
      if (facts.schemaVersion !== manifest.schemaVersion) {
        throw new Error(`${DATABASE_FILE} has schema version ${facts.schemaVersion} where the manifest says ${manifest.schemaVersion}`); // prettier-ignore
      }
    }
    for (const [name, count] of Object.entries(facts.counts)) {
      if (manifest.counts[name] !== count) {
        throw new Error(`${file.name} holds ${count} ${name} where the manifest says ${manifest.counts[name]}`);
      }
    }
  }
}

/** Whether the operator key (TRAWL_SECRET_KEY, else DIR/secret.key) opens every sealed webhook secret. */
function checkSecrets(staged: string, options: RestoreOptions, dataDir: string): SecretCheck {
  const sealed = sealedWebhookSecrets(staged);
  const configured = options.secretKey?.trim() ? options.secretKey : undefined;
  const key = configured
    ? loadOperatorKey({ configured, dataDir })
    : fs.existsSync(dataDir)
      ? readOperatorKeyFile(dataDir)
      : undefined;
  const source = configured ? 'TRAWL_SECRET_KEY' : key ? 'secret.key' : 'none';
  if (!key || sealed.length === 0) return { sealed: sealed.length, opened: 0, key: source };
  const box = createSecretBox(key, parsePreviousKey(options.secretKeyPrevious));
  let opened = 0;
  for (const s of sealed) {
    try {
      box.open(s);
      opened++;
    } catch {
      // counted as not opened; the secret itself is never shown
    }
  }
  return { sealed: sealed.length, opened, key: source };
}

/** The sentence that says what a key that does not open the secrets means, or undefined when it does. */
function secretProblem(check: SecretCheck, dataDir: string): string | undefined {
  if (check.sealed === 0 || check.opened === check.sealed) return undefined;
  const where =
    check.key === 'none'
      ? `no operator key: neither TRAWL_SECRET_KEY is set nor ${path.join(dataDir, 'secret.key')} exists`
      : `the operator key (${check.key === 'secret.key' ? path.join(dataDir, 'secret.key') : 'TRAWL_SECRET_KEY'}) opens ${check.opened} of them`;
  return (
    `the backup holds ${check.sealed} sealed webhook secrets and ${where}. Put the backed-up directory's ` +
    'secret.key in the data directory (or set TRAWL_SECRET_KEY to the key it ran with) and restore again. ' +
    "Restored without it (--force), those monitors' webhook deliveries fail until their webhooks are made again"
  );
}

/** Moves DIR's databases aside into `aside` and the staged ones in; on a failure, puts DIR back as it was. */
function swapIn(dataDir: string, staging: string, aside: string, names: string[]): string[] {
  fs.mkdirSync(aside, { mode: 0o700 });
  const moved: string[] = [];
  const placed: string[] = [];
  try {
    for (const name of SWAPPED) {
      if (!fs.existsSync(path.join(dataDir, name))) continue;
      fs.renameSync(path.join(dataDir, name), path.join(aside, name));
      moved.push(name);
    }
    for (const name of names) {
      fs.renameSync(path.join(staging, name), path.join(dataDir, name));
      placed.push(name);
      fs.chmodSync(path.join(dataDir, name), PRIVATE_FILE_MODE);
    }
  } catch (err) {
    for (const name of placed) fs.rmSync(path.join(dataDir, name), { force: true });
    for (const name of moved) fs.renameSync(path.join(aside, name), path.join(dataDir, name));
    throw err;
  }
  return moved.filter((name) => name === DATABASE_FILE || name === CACHE_FILE);
}

/**
 * Restores the archive `from` into `dataDir`. Throws, with DIR as it was, on: a damaged or foreign
 * archive, a schema newer than this code, a DIR that holds a store (without `force`), a key that does
 * not open the webhook secrets (without `force`), and a DIR whose database another process has open.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreReport> {
  const dataDir = path.resolve(options.dataDir);
  const from = path.resolve(options.from);
  if (!fs.existsSync(from) || !fs.statSync(from).isFile()) throw new Error(`--from: ${from} is not a file`);
  const held = occupied(dataDir);
  if (held.length > 0 && !options.force) {
    throw new Error(`--data-dir: ${dataDir} is not empty (${held.slice(0, 5).join(', ')}); restore into a new folder, or add --force to replace its databases`); // prettier-ignore
  }
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  const staging = besides(dataDir, 'restore');
  ensurePrivateDir(staging);
  try {
    const input = await fsp.open(from, 'r');
    let manifest: BackupManifest;
    try {
      const entries = await listTar(input, (await input.stat()).size).catch((err: Error) => {
        throw new Error(`${from} is not a readable backup: ${err.message}`);
      });
      manifest = await readManifest(input, entries);
      if (manifest.schemaVersion > LATEST_SCHEMA) throw newerRefusal(manifest.schemaVersion, 'The backup');
      await extractVerified(input, entries, manifest, staging, options.onProgress);
    } finally {
      await input.close();
    }
    const secrets = checkSecrets(path.join(staging, DATABASE_FILE), options, dataDir);
    const problem = secretProblem(secrets, dataDir);
    if (problem && !options.force) throw new Error(`${problem}.`);
    const store = path.join(dataDir, DATABASE_FILE);
    const lock = fs.existsSync(store) ? holdExclusively(store) : { release() {} };
    if (!lock) {
      throw new Error(`${dataDir} is in use: a process (trawl serve, mcp, import, ...) has its database open. Stop it, then restore again`); // prettier-ignore
    }
    lock.release(); // the swap follows at once: two renames per file, nothing in between that waits
    ensurePrivateDir(dataDir);
    const replaced = swapIn(
      dataDir,
      staging,
      path.join(staging, 'previous'),
      manifest.files.map((f) => f.name),
    );
    return {
      manifest,
      dataDir,
      migratesOnOpen: manifest.schemaVersion < LATEST_SCHEMA,
      secrets,
      replaced,
      warnings: problem ? [`${problem}.`] : [],
    };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
