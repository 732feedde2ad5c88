/**
 * `trawl migrate --from DIR --to postgres://…`: the door of core/migrate. A progress line per table on
 * stderr, then each table's rows on both sides on stdout; fails naming every table whose counts differ.
 */
import { migrateToPg, type CopyProgress, type MigrateReport } from '../compose/migrate.js';
import { createProgress, parseProgressMode, type ProgressMode, type ProgressReporter } from './progress.js';
import { printTable } from './table.js';

/** `trawl migrate` options (docs/migrate.md). */
export interface MigrateFlags {
  from: string;
  to: string;
  schema?: string;
  /** Else `TRAWL_SECRET_KEY`. */
  secretKey?: string;
  restart?: boolean;
  batch?: string;
  progress?: string;
}

/** Per-table progress reporters: a new one when the copy moves to the next table. */
function tableProgress(mode: ProgressMode) {
  let current: { table: string; reporter: ProgressReporter; startedAt: number } | undefined;
  const end = () => current?.reporter.finish();
  return {
    update(p: CopyProgress) {
      if (current?.table !== p.table) {
        end();
        const reporter = createProgress({ label: `migrate ${p.table}`, unit: 'rows', mode, everyItems: 10_000 });
        current = { table: p.table, reporter, startedAt: p.copied };
      }
      const { reporter, startedAt } = current;
      if (p.skipped) reporter.note(`copied by an earlier run (${p.copied} rows)`);
      else reporter.update({ done: p.copied, failed: 0, queued: Math.max(0, p.total - p.copied), handled: p.copied - startedAt }); // prettier-ignore
      if (p.finished && !p.skipped) reporter.note(`${p.copied} rows, ${p.written} written by this run`);
    },
    end,
  };
}

function printReport(report: MigrateReport): void {
  printTable([
    ['TABLE', 'DIRECTORY', 'POSTGRESQL', ''],
    ...report.counts.map((c) => [c.table, String(c.source), String(c.destination), c.source === c.destination ? 'ok' : 'DIFFERS']), // prettier-ignore
  ]);
  const byReason = new Map<string, string[]>();
  for (const s of report.skipped) byReason.set(s.why, [...(byReason.get(s.why) ?? []), s.table]);
  for (const [why, tables] of byReason) process.stderr.write(`migrate: not copied: ${tables.join(', ')}: ${why}\n`);
  const { vectors, stale } = report.embeddings;
  if (vectors + stale > 0) {
    const left = stale > 0 ? `; ${stale} documents changed since they were embedded are left for replicas to embed again` : ''; // prettier-ignore
    process.stderr.write(`migrate: ${vectors} document embedding vectors in embedding_vectors${left}\n`);
  }
  if (report.resealed > 0) {
    process.stderr.write(`migrate: ${report.resealed} webhook secrets sealed again under TRAWL_SECRET_KEY\n`);
  }
}

/** Runs the migration; throws (the CLI exits 1) on a bad option, on any refusal, and when counts differ. */
export async function runMigrate(flags: MigrateFlags, env: NodeJS.ProcessEnv): Promise<void> {
  const mode = parseProgressMode(flags.progress);
  if (!mode) throw new Error(`--progress must be auto, bar, lines or off (got "${flags.progress}")`);
  const batchSize = flags.batch === undefined ? undefined : Number(flags.batch);
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize > 0)) {
    throw new Error(`--batch must be a positive whole number of rows (got "${flags.batch}")`);
  }
  const progress = tableProgress(mode);
  let report: MigrateReport;
  try {
    report = await migrateToPg({
      dataDir: flags.from,
      url: flags.to,
      schema: flags.schema,
      secretKey: flags.secretKey ?? env.TRAWL_SECRET_KEY,
      restart: flags.restart === true,
      batchSize,
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.end();
  }
  printReport(report);
  if (report.mismatched.length > 0) {
    throw new Error(
      `row counts differ for ${report.mismatched.join(', ')}: rows were added to or removed from the directory ` +
        'during or after the copy, or the database already held rows; stop every process on the directory and run ' +
        'again with --restart',
    );
  }
  process.stderr.write('migrate: every table copied; counts match\n');
}
