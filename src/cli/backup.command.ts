/**
 * `trawl backup --to FILE` and `trawl restore --from FILE --data-dir DIR`: the doors of
 * src/compose/backup.ts. Progress and every warning go to stderr; the summary (file, sizes, counts) to
 * stdout. Both refuse a PostgreSQL store, whose backup is `pg_dump` (docs/operations.md#backups-and-restore).
 */
import type { Config } from '../config/settings.js';
import { createBackup, restoreBackup, type BackupProgress } from '../compose/backup.js';
import { printTable } from './table.js';

export interface BackupFlags {
  to: string;
  withCache?: boolean;
  force?: boolean;
  progress?: string;
}

export interface RestoreFlags {
  from: string;
  force?: boolean;
  progress?: string;
  /** The `--data-dir` flag as given (the setting's own, read to require it). */
  dataDir?: string;
}

const PG_REFUSAL =
  'with TRAWL_DATABASE_URL the durable state is in PostgreSQL, which this command does not copy: back it up ' +
  'with `pg_dump -Fc -n <schema>` and restore it with `pg_restore` (docs/operations.md#backups-and-restore). ' +
  "A replica's data directory holds only a copy derived from PostgreSQL, which it rebuilds itself.";

/** Progress lines for copies that last: nothing in the first second of a file, then at most one a second. */
function progressLines(label: string, mode: string | undefined) {
  if (mode !== undefined && !['auto', 'bar', 'lines', 'off'].includes(mode)) {
    throw new Error(`--progress must be auto, bar, lines or off (got "${mode}")`);
  }
  let current = '';
  let began = 0;
  let lastLine = 0;
  return (p: BackupProgress) => {
    if (mode === 'off') return;
    const key = `${p.phase} ${p.file}`;
    const now = Date.now();
    if (key !== current) [current, began, lastLine] = [key, now, now];
    if (now - began < 1000 || now - lastLine < 1000) return;
    lastLine = now;
    const unit = p.phase === 'copy' ? 'pages' : 'bytes';
    const pct = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
    process.stderr.write(`${label}: ${p.phase} ${p.file} ${pct}% (${p.done} of ${p.total} ${unit})\n`);
  };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** `trawl backup`: throws (the CLI exits 1) on PostgreSQL, a bad option or a failed copy. */
export async function runBackup(config: Config, flags: BackupFlags): Promise<void> {
  if (config.databaseUrl) throw new Error(`backup: ${PG_REFUSAL}`);
  const report = await createBackup({
    dataDir: config.dataDir,
    to: flags.to,
    withCache: flags.withCache === true,
    force: flags.force === true,
    onProgress: progressLines('backup', flags.progress),
  });
  const { manifest } = report;
  for (const name of report.missing) process.stderr.write(`backup: ${config.dataDir} has no ${name}; the backup has none\n`); // prettier-ignore
  process.stderr.write(
    'backup: not included: secret.key and first-api-key. Keep secret.key (or TRAWL_SECRET_KEY) apart from the ' +
      `backup: ${manifest.sealedWebhookSecrets > 0 ? `its ${manifest.sealedWebhookSecrets} sealed webhook secrets open` : 'sealed webhook secrets open'} only with it.\n`,
  );
  printTable([['FILE', 'BYTES', 'SHA-256'], ...manifest.files.map((f) => [f.name, String(f.bytes), f.sha256])]);
  printTable([['COUNT', 'ROWS'], ...Object.entries(manifest.counts).map(([name, n]) => [name, String(n)])]);
  process.stderr.write(`backup: wrote ${flags.to} (${mib(report.bytes)}, schema ${manifest.schemaVersion}, mode 0600)\n`); // prettier-ignore
}

/** `trawl restore`: throws (the CLI exits 1) on PostgreSQL, a missing --data-dir, or any refusal of the restore. */
export async function runRestore(config: Config, flags: RestoreFlags, env: NodeJS.ProcessEnv): Promise<void> {
  if (config.databaseUrl) throw new Error(`restore: ${PG_REFUSAL}`);
  if (flags.dataDir === undefined && !env.TRAWL_DATA_DIR) {
    throw new Error('restore needs --data-dir DIR (or TRAWL_DATA_DIR): the folder to restore into, named on purpose');
  }
  const report = await restoreBackup({
    from: flags.from,
    dataDir: config.dataDir,
    force: flags.force === true,
    secretKey: config.secretKey,
    secretKeyPrevious: config.secretKeyPrevious,
    onProgress: progressLines('restore', flags.progress),
  });
  for (const warning of report.warnings) process.stderr.write(`restore: WARNING: ${warning}\n`);
  const { manifest, secrets } = report;
  printTable([['COUNT', 'ROWS'], ...Object.entries(manifest.counts).map(([name, n]) => [name, String(n)])]);
  if (report.replaced.length > 0) process.stderr.write(`restore: replaced ${report.replaced.join(', ')}\n`);
  if (secrets.sealed > 0 && secrets.opened === secrets.sealed) {
    process.stderr.write(`restore: the operator key (${secrets.key}) opens all ${secrets.sealed} sealed webhook secrets\n`); // prettier-ignore
  }
  const migrate = report.migratesOnOpen ? `; schema ${manifest.schemaVersion} is migrated when Trawl next opens it` : ''; // prettier-ignore
  process.stderr.write(`restore: ${report.dataDir} now holds the backup of ${manifest.createdAt} (checked: checksums, integrity, counts)${migrate}\n`); // prettier-ignore
}
