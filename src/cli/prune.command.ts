/**
 * `trawl prune [--dry-run]`: one retention sweep now (docs/operations.md#retention), under the same lease
 * as the serving processes' periodic sweep, so it never runs beside one; prints per kind the retention,
 * its line and the rows deleted (usage: folded into monthly totals), or with `--dry-run` that would be.
 */
import type { Config } from '../config/config.js';
import type { SweepReport } from '../core/retention/retention.service.js';
import { printTable } from './table.js';
import { withApp } from './with-app.js';

export interface PruneFlags {
  dryRun?: boolean;
  json?: boolean;
}

export function prune(config: Config, flags: PruneFlags): Promise<void> {
  return withApp(config, async (app) => {
    const report = await app.operator.retention.sweep({ dryRun: flags.dryRun === true });
    if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printReport(report);
  });
}

function printReport(report: SweepReport): void {
  const verb = report.dryRun ? 'would delete' : 'deleted';
  printTable([
    ['kind', 'kept (days)', 'line', verb, 'partitions dropped'],
    ...report.kinds.map((k) => [
      k.kind,
      k.days === null ? 'forever' : String(k.days),
      k.line ?? '-',
      String(k.rows),
      k.partitions.join(', ') || '-',
    ]),
  ]);
  if (report.created.length > 0) process.stdout.write(`partitions made ahead: ${report.created.join(', ')}\n`);
  const total = report.kinds.reduce((n, k) => n + k.rows, 0);
  process.stdout.write(
    report.dryRun ? `dry run: nothing changed; ${total} row(s) would go\n` : `${total} row(s) deleted\n`,
  );
}
