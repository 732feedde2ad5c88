/**
 * `trawl monitors list | runs | deliveries`: what the monitors of a data directory are doing, for the
 * operator — their schedule, their last runs and why they failed, and every webhook delivery attempt.
 */
import type { Config } from '../config/config.js';
import { printTable } from './table.js';
import { OPERATOR, withApp } from './with-app.js';

const json = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function listMonitors(config: Config, flags: { status?: string; json?: boolean }): Promise<void> {
  return withApp<void>(config, async (app) => {
    const page = await app.operator.monitors.list({ status: flags.status, limit: 100 }, OPERATOR);
    if (flags.json) return json(page.data);
    if (page.data.length === 0) return void process.stdout.write('No monitors.\n');
    printTable([
      ['ID', 'STATUS', 'EVERY', 'NEXT RUN', 'NAME'],
      ...page.data.map((m) => [m.id, m.status, m.trigger?.period ?? 'manual', m.nextRunAt ?? '-', m.name ?? '']),
    ]);
    if (page.hasMore) process.stdout.write('(the 100 newest; use --json with the REST API for more)\n');
  });
}

export function listRuns(config: Config, id: string, flags: { json?: boolean }): Promise<void> {
  return withApp<void>(config, async (app) => {
    const page = await app.operator.monitors.runs(id, { limit: 50 }, OPERATOR);
    if (flags.json) return json(page.data);
    if (page.data.length === 0) return void process.stdout.write(`Monitor ${id} has not run yet.\n`);
    printTable([
      ['RUN', 'STATUS', 'CREATED', 'MS', 'RESULTS', 'FAIL REASON'],
      ...page.data.map((r) => [
        r.id,
        r.status,
        r.createdAt,
        r.durationMs === null ? '-' : String(r.durationMs),
        r.output ? String(r.output.results.length) : '-',
        r.failReason ?? '',
      ]),
    ]);
  });
}

export function listDeliveries(config: Config, id: string, flags: { json?: boolean }): Promise<void> {
  return withApp<void>(config, async (app) => {
    const page = await app.operator.monitors.deliveries(id, { limit: 50 }, OPERATOR);
    if (flags.json) return json(page.data);
    if (page.data.length === 0) return void process.stdout.write(`No webhook deliveries for ${id}.\n`);
    const rows = [['EVENT', 'TYPE', 'STATUS', 'ATTEMPT', 'AT', 'HTTP', 'ERROR']];
    for (const d of page.data) {
      const attempts = d.attempts.length > 0 ? d.attempts : [undefined];
      attempts.forEach((a, i) =>
        rows.push([
          i === 0 ? d.eventId : '',
          i === 0 ? d.type : '',
          i === 0 ? d.status + (d.nextAttemptAt ? ` (next ${d.nextAttemptAt})` : '') : '',
          a ? String(i + 1) : '-',
          a?.at ?? '',
          a?.status === null || a === undefined ? '' : String(a.status),
          a?.error ?? '',
        ]),
      );
    }
    printTable(rows);
  });
}
