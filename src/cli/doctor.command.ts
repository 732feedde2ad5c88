/**
 * `trawl doctor`: the status report of src/core/status (what `GET /status` answers), printed for a person
 * or as JSON. It opens the database only if there is one, so checking a new installation creates nothing.
 * Exit code 1 when something configured is broken; a missing optional part is only a note.
 */
import { defaultDataDir, type Config } from '../config/config.js';
import { offlineReport } from '../compose/offline-report.js';
import type { Check } from '../core/status/report.js';
import type { StatusReport } from '../core/status/status.service.js';

/** The report of this configuration: the same service `GET /status` runs, on this process's own client. */
export function doctorReport(config: Config): Promise<StatusReport> {
  // the default data directory is named when the listener serves it and this report reads another
  return offlineReport({ ...config, defaultDataDir: defaultDataDir() });
}

const MARK: Record<Check['state'], string> = { ok: 'ok', failed: 'FAILED', unverified: 'unverified', skipped: 'skipped', off: 'off' }; // prettier-ignore

function size(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) [value, unit] = [value / 1000, unit + 1];
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** One check on one line: its state, where, what was found; `named` for a section of several checks. */
function checkLine(c: Check, named = false): string {
  const where = [c.model, c.url].filter(Boolean).join(' at ');
  const took = c.ms === undefined ? '' : ` (${c.ms} ms)`;
  return `${named ? `${c.name.padEnd(9)} ` : ''}${MARK[c.state].padEnd(11)}${where ? `${where}: ` : ''}${c.detail}${took}`;
}

function dataDirLines(r: StatusReport): string[] {
  const d = r.dataDir;
  const state = !d.writable
    ? `${d.exists ? 'NOT WRITABLE' : 'CANNOT BE CREATED'}: ${d.problem ?? 'permission denied'}`
    : d.exists
      ? 'writable'
      : 'does not exist yet (the first command that writes creates it)';
  const held = d.exists
    ? `, ${d.sizeCapped ? 'over ' : ''}${size(d.bytes)}${d.database ? '' : ', no database yet'}`
    : '';
  return [`${d.path}: ${state}${held}`];
}

function storeLines(r: StatusReport): string[] {
  const s = r.store;
  if (s.backend === 'sqlite') return [`SQLite ${s.version}, in the data directory`];
  const head = `PostgreSQL ${s.version || '(unreachable)'} at ${s.url}, schema ${s.schema}${s.schemaVersion === undefined ? '' : ` (migration ${s.schemaVersion})`}`; // prettier-ignore
  if (s.problem) return [head, `FAILED: ${s.problem}`];
  const replicas = s.replicas ?? [];
  const seen = replicas.map((p) => {
    const ago = Math.max(0, Math.round((Date.parse(r.checkedAt) - Date.parse(p.seenAt)) / 1000));
    const lag = p.behind === 0 ? 'up to date' : `${p.behind} documents behind for ${Math.round(p.lagMs / 1000)} s`;
    return `replica ${p.id} (Trawl ${p.version}): seen ${ago} s ago, ${lag}`;
  });
  return [head, ...(seen.length > 0 ? seen : ['no replica seen in the last five minutes'])];
}

/** The keys that hold admin (every team), named; the operator's first key is one. */
function adminLine(r: StatusReport): string {
  const admins = r.keys.admins;
  if (admins.length === 0) return 'no key holds admin (the CLI administers every team)';
  const named = admins.map((k) => `${k.id} "${k.name}"${k.legacy ? ' (made without --scopes: narrow it)' : ''}`);
  return `hold admin (every team's keys and credits): ${named.join(', ')}`;
}

function indexLines(r: StatusReport): string[] {
  const { index: i } = r;
  const lines = [
    `${i.documents} documents (${i.searchable} in the search index, ${i.embeddedChunks} chunks embedded)`,
    `code: ${i.code.chunks} chunks from ${i.code.files} files of ${i.code.sources} sources`,
  ];
  if (i.collectionCount > 0) {
    const shown = i.collections.map((c) => `${c.name ?? '(fetched pages)'} ${c.documents}`).join(', ');
    lines.push(`collections: ${shown}${i.collectionCount > i.collections.length ? ', …' : ''}`);
  }
  return lines;
}

function runtimeLine(r: StatusReport): string {
  const { node, supported, endOfLife, ended } = r.runtime;
  if (!supported) return `${node}: not a supported line (20.19+, 22.12+, 24+)`;
  return `${node}: ${ended ? 'end of life since' : 'supported, maintained until'} ${endOfLife}`;
}

function section(label: string, lines: string[]): string {
  return lines.map((line, n) => `${(n === 0 ? label : '').padEnd(16)}${line}`).join('\n');
}

/** The report for a person: one section per part, then what is broken and what to do next. */
export function renderReport(r: StatusReport): string {
  const p = r.providers;
  const keys = `${r.keys.active} active, ${r.keys.revoked} revoked${r.keys.firstKeyFile ? `; first key in ${r.keys.firstKeyFile}` : ''}`;
  const parts = [
    `Trawl ${r.version}: ${r.ok ? 'nothing configured is broken' : 'something configured is broken'}`,
    '',
    section('Data directory', dataDirLines(r)),
    section('Store', storeLines(r)),
    section('Index', indexLines(r)),
    section(
      'Web search',
      p.webSearch.map((c) => checkLine(c, true)),
    ),
    section('Model', [checkLine(p.model)]),
    section('Embeddings', [checkLine(p.embeddings)]),
    section('Browser', [checkLine(p.browser)]),
    section('Code model', [checkLine(p.codeModel)]),
    section('API keys', [keys, adminLine(r)]),
    section('Listener', [checkLine(r.listener)]),
    section(
      'Sign-in',
      r.signIn.map((c) => checkLine(c, true)),
    ),
    section('Node.js', [runtimeLine(r)]),
  ];
  const steps = r.nextSteps.map(
    (s) => `${s.level === 'broken' ? 'BROKEN ' : ''}${s.message}${s.fix ? `\n    → ${s.fix}` : ''}`,
  );
  if (steps.length > 0) parts.push('', 'Next steps:', ...steps.map((s) => `  - ${s}`));
  return `${parts.join('\n')}\n`;
}

/** Prints the report (`--json`: as GET /status answers it); exit code 1 when something configured is broken. */
export async function runDoctor(config: Config, options: { json: boolean }): Promise<void> {
  const report = await doctorReport(config);
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  if (!report.ok) process.exitCode = 1;
}
