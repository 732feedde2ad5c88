// The report of bench/soak.mjs: Markdown tables (each with the machine line) and an SVG plot drawn by
// hand (one panel per metric, a line per replica or kind over the minutes, the faults marked), written
// to the output directory as soak.md and soak.svg.
import fs from 'node:fs';
import path from 'node:path';
import { fmt, mdTable } from './lib.mjs';

const KIND_LABEL = {
  search_instant: 'search instant',
  search_auto: 'search auto',
  contents_hit: 'contents hit',
  contents_miss: 'contents miss',
  context: 'context',
  monitor_trigger: 'monitor trigger',
  agent_run: 'agent run (POST)',
  mcp_task_start: 'MCP task start',
  mcp_task_end: 'MCP task end-to-end',
};
const kindsOf = (result) => Object.keys(result.totals).filter((k) => KIND_LABEL[k]);

function machineOf(result) {
  const m = result.machine;
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  return `_${m.cpu}, ${m.cores} cores; load average ${load(m.loadBefore)} before, ${load(m.loadAfter)} after._`;
}

const minuteOf = (s) => fmt(s.minute, Number.isInteger(Math.round(s.minute * 1000) / 1000) ? 0 : 2);

function processTable(result) {
  const rows = [];
  for (const s of result.samples) {
    for (const r of s.replicas) {
      rows.push([minuteOf(s), r.replica, fmt(r.rssMB, 0), fmt(r.fds, 0), fmt(r.cpuPct, 0), fmt(r.healthP50, 2), fmt(r.healthP99, 2), fmt(r.healthMax, 1), fmt(r.lagP99, 2), fmt(r.lagMax, 1), fmt(s.benchLoop.p99, 1)]); // prettier-ignore
    }
  }
  return mdTable(['min', 'replica', 'RSS MB', 'open fds', 'CPU %', '/health p50 ms', '/health p99 ms', '/health max ms', 'loop lag p99 ms (/metrics)', 'loop lag max ms', 'bench loop p99 ms'], rows); // prettier-ignore
}

function latencyTable(result) {
  const kinds = kindsOf(result);
  const rows = result.samples.map((s) => [
    minuteOf(s),
    ...kinds.map((k) => {
      const x = s.kinds[k];
      if (!x || x.n === 0) return '–';
      const errs = x.failedAttempts || x.failed ? ` (${x.failedAttempts}/${x.failed})` : '';
      return `${fmt(x.p99, x.p99 < 100 ? 1 : 0)}${errs}`;
    }),
  ]);
  return mdTable(['min', ...kinds.map((k) => KIND_LABEL[k])], rows);
}

function totalsTable(result) {
  const rows = kindsOf(result).map((k) => {
    const t = result.totals[k];
    const why = Object.entries(t.why)
      .map(([w, n]) => `${n}× ${w}`)
      .join('; ');
    return [KIND_LABEL[k], t.n, t.ok, fmt(t.p50, 1), fmt(t.p99, 1), fmt(t.max, 0), t.failedAttempts, t.retried, t.failed, t.skipped, why || '–']; // prettier-ignore
  });
  return mdTable(['kind', 'requests', 'succeeded', 'p50 ms', 'p99 ms', 'max ms', 'failed attempts', 'retried', 'failed finally', 'ticks skipped', 'final failures'], rows); // prettier-ignore
}

function faultTable(result) {
  const s = (ms) => (ms === undefined ? '–' : fmt(ms / 1000, 1));
  const start = result.samples[0]?.from ?? 0;
  const rows = result.faults.map((f) => [
    f.kind === 'postgres-restart' ? 'PostgreSQL restarted (pg_ctl restart -m fast)' : `replica ${f.replica} SIGKILLed, started again`, // prettier-ignore
    s(f.start - start),
    s(f.done - f.start),
    f.failedAttempts,
    f.failedRequests,
    s(f.outageMs),
    s(f.recoveredMs),
    s(f.victimBackMs),
    Object.entries(f.failedByWhy)
      .map(([w, n]) => `${n}× ${w}`)
      .join('; ') || '–',
  ]);
  return mdTable(['fault', 'at (s)', 'took (s)', 'failed attempts', 'failed requests', 'errors over (s)', 'recovered after (s)', 'victim served again after (s)', 'failed attempts by cause'], rows); // prettier-ignore
}

function crashTable(result) {
  const start = result.samples[0]?.from ?? 0;
  const rows = result.crashes.map((c) => [c.replica, fmt((c.at - start) / 1000, 1), c.signal ?? `code ${c.code}`, c.back === undefined ? 'not restarted' : fmt((c.back - c.at) / 1000, 1), c.cause]); // prettier-ignore
  return mdTable(['replica', 'at (s)', 'exit', 'listening again after (s)', 'what it printed'], rows);
}

function checksTable(result) {
  return mdTable(
    ['check', 'result', 'detail'],
    result.checks.map((c) => [c.name, c.ok ? 'ok' : 'FAILED', c.detail]),
  );
}

/** The Markdown report; also writes soak.md and soak.svg into `out`. */
export function writeReport(out, result) {
  const c = result.config;
  const machine = machineOf(result);
  const rates = Object.entries(c.ratesPerSecond)
    .map(([k, v]) => `${k} ${v}/s`)
    .join(', ');
  const mode =
    c.replicas === 1 ? 'one `trawl serve` on SQLite' : `${c.replicas} replicas on a private PostgreSQL 15 cluster`;
  const ok = result.checks.every((x) => x.ok);
  const lines = [
    `## Soak: ${mode}, ${c.minutes} min (bench/soak.mjs)`,
    '',
    `\`${result.command}\``,
    '',
    result.machine.before,
    '',
    `Traffic (open loop, each kind at its own steady rate; a request goes to the next replica in turn, and 503, 429 or a refused or reset connection is retried with backoff for up to 60 s): ${rates}. ` +
      `Agent runs and MCP tasks use a loopback model (30 ms a call); \`auto\` searches a loopback SearXNG; monitors post to a loopback receiver that checks every signature; a scheduled monitor's slot is made due every 30 s. ` + // prettier-ignore
      `${c.docs} SciFact abstracts and this repository's \`src/\` (code) indexed first. \`TRAWL_LEASE_MS=${c.leaseMs}\`, \`TRAWL_POLL_MS=1000\`. ` + // prettier-ignore
      (c.metricsAvailable ? 'Event-loop lag from the server\'s `/metrics` (prom-client), beside the `/health` probes.' : 'The server has no `/metrics`: event-loop delay is seen from the client, as `/health` latency (probed every 500 ms per replica; it does no other work, so what it takes beyond a round trip of about 0.3 ms is time its request waited for the event loop).'), // prettier-ignore
    '',
    `### Processes, per minute`,
    '',
    machine,
    '',
    processTable(result),
    '',
    '### p99 latency per kind, per minute (ms; in brackets: failed attempts / requests failed finally)',
    '',
    machine,
    '',
    latencyTable(result),
    '',
    '### Whole run, per kind',
    '',
    machine,
    '',
    totalsTable(result),
    '',
  ];
  if (result.faults.length) {
    lines.push('### Faults', '', machine, '', 'Failed attempts: from the fault until the next one (or the end); "recovered after": from the fault to the first success after its last failed attempt; "victim served again": to the first success answered by the killed replica.', '', faultTable(result), ''); // prettier-ignore
  }
  if (result.crashes.length) {
    lines.push('### Unexpected exits', '', machine, '', 'A replica that exited without being asked to was started again after 1 s, as a supervisor would.', '', crashTable(result), ''); // prettier-ignore
  }
  lines.push(
    `### Nothing lost: the store (${c.store}) against what the clients were told`,
    '',
    machine,
    '',
    checksTable(result),
    '',
    `Open after the settling wait: ${JSON.stringify(result.settled)}. Fixtures: ${JSON.stringify(result.fixtures)}. Contents hits by source: ${JSON.stringify(result.contentsSources)}. Server log lines at warn or above, per replica: ${result.logWarnings.join(', ')}.`, // prettier-ignore
    '',
    `![soak plot](soak.svg)`,
    '',
    headline(result, ok),
  );
  const md = lines.join('\n');
  fs.writeFileSync(path.join(out, 'soak.md'), md + '\n');
  fs.writeFileSync(path.join(out, 'soak.svg'), plot(result));
  return md;
}

function headline(result, ok) {
  const last = result.samples.at(-1);
  const first = result.samples[0];
  const rss = (s) => s.replicas.map((r) => fmt(r.rssMB, 0)).join('/');
  const fds = (s) => s.replicas.map((r) => fmt(r.fds, 0)).join('/');
  const t = result.totals;
  const failed = Object.values(t).reduce((a, x) => a + x.failed, 0);
  const rec = result.faults.map((f) => `${f.kind}=${fmt(f.recoveredMs / 1000, 1)}`).join(',') || '–';
  return `soak_replicas=${result.config.replicas} soak_minutes=${result.config.minutes} rss_mb_first=${rss(first)} rss_mb_last=${rss(last)} fds_first=${fds(first)} fds_last=${fds(last)} search_instant_p99_ms=${fmt(t.search_instant.p99, 1)} requests_failed=${failed} recovered_s=${rec} unexpected_exits=${result.crashes.length} nothing_lost=${ok}`; // prettier-ignore
}

// ---------------------------------------------------------------------------------------------------
// The plot

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22']; // prettier-ignore
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((x) => x >= v);
}

/** One panel: `series` [{label, points: [[minute, value]]}], linear or log10 y. */
function panel({ x0, y0, w, h, title, series, xMax, log = false, faults }) {
  const values = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => Number.isFinite(v) && (!log || v > 0));
  const lo = log ? 10 ** Math.floor(Math.log10(Math.min(...values, 1))) : 0;
  const hi = log ? 10 ** Math.ceil(Math.log10(Math.max(...values, 10))) : niceMax(Math.max(...values, 0) * 1.05);
  const fy = (v) => (log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo));
  const X = (m) => x0 + (m / xMax) * w;
  const Y = (v) => y0 + h - fy(v) * h;
  const out = [`<text x="${x0}" y="${y0 - 8}" font-size="13" font-weight="bold">${esc(title)}</text>`];
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  const ticks = log
    ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, i) => lo * 10 ** i)
    : Array.from({ length: 5 }, (_, i) => lo + ((hi - lo) * i) / 4);
  for (const t of ticks) {
    out.push(`<line x1="${x0}" x2="${x0 + w}" y1="${Y(t)}" y2="${Y(t)}" stroke="#eee"/>`);
    out.push(`<text x="${x0 - 4}" y="${Y(t) + 4}" font-size="10" text-anchor="end">${t >= 100 || t === 0 ? t.toFixed(0) : +t.toPrecision(2)}</text>`); // prettier-ignore
  }
  const step = xMax <= 10 ? 1 : xMax <= 30 ? 5 : 10;
  for (let m = 0; m <= xMax; m += step) {
    out.push(`<text x="${X(m)}" y="${y0 + h + 13}" font-size="10" text-anchor="middle">${m}</text>`);
  }
  for (const f of faults) {
    out.push(`<line x1="${X(f.minute)}" x2="${X(f.minute)}" y1="${y0}" y2="${y0 + h}" stroke="#000" stroke-dasharray="4 3"/>`); // prettier-ignore
    out.push(`<text x="${X(f.minute) + 3}" y="${y0 + 11}" font-size="10">${esc(f.label)}</text>`);
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.filter((p) => Number.isFinite(p[1]) && (!log || p[1] > 0));
    if (pts.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8" points="${pts.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(' ')}"/>`); // prettier-ignore
    for (const p of pts)
      out.push(`<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="2.2" fill="${color}"/>`);
    out.push(`<rect x="${x0 + w + 12}" y="${y0 + i * 15}" width="10" height="10" fill="${color}"/>`);
    out.push(`<text x="${x0 + w + 26}" y="${y0 + i * 15 + 9}" font-size="11">${esc(s.label)}</text>`);
  });
  return out.join('\n');
}

function plot(result) {
  const start = result.samples[0]?.from ?? 0;
  const minute = (t) => (t - start) / 60_000;
  const xMax = Math.max(1, Math.ceil(minute(result.samples.at(-1)?.to ?? start + 60_000)));
  const faults = result.faults.map((f) => ({ minute: minute(f.start), label: f.kind === 'postgres-restart' ? 'PG restart' : `kill r${f.replica}` })); // prettier-ignore
  for (const c of result.crashes) faults.push({ minute: minute(c.at), label: `r${c.replica} exited` });
  const perReplica = (field) =>
    result.samples[0].replicas.map((_, i) => ({
      label: `replica ${i + 1}`,
      points: result.samples.map((s) => [minute(s.to), s.replicas[i][field]]),
    }));
  const kinds = kindsOf(result);
  const lag = perReplica('healthP99').map((s) => ({ ...s, label: `${s.label} /health p99` }));
  lag.push({ label: 'bench process loop p99', points: result.samples.map((s) => [minute(s.to), s.benchLoop.p99]) });
  if (result.config.metricsAvailable) lag.push(...perReplica('lagP99').map((s) => ({ ...s, label: `${s.label} /metrics lag p99` }))); // prettier-ignore
  const panels = [
    { title: 'RSS (MB)', series: perReplica('rssMB') },
    { title: 'Open file descriptors', series: perReplica('fds') },
    { title: 'Event-loop delay (ms)', series: lag },
    { title: 'p99 latency per kind (ms, log scale)', log: true, series: kinds.map((k) => ({ label: KIND_LABEL[k], points: result.samples.map((s) => [minute(s.to), s.kinds[k]?.p99]) })) }, // prettier-ignore
    { title: 'Failed attempts per minute', series: kinds.map((k) => ({ label: KIND_LABEL[k], points: result.samples.map((s) => [minute(s.to), s.kinds[k]?.failedAttempts ?? 0]) })) }, // prettier-ignore
  ];
  const W = 980;
  const w = 640;
  const h = 170;
  const gap = 60;
  const top = 50;
  const H = top + panels.length * (h + gap) + 20;
  const c = result.config;
  const title = `Trawl soak: ${c.replicas === 1 ? 'one process on SQLite' : `${c.replicas} replicas on PostgreSQL`}, ${c.minutes} min; x: minutes`; // prettier-ignore
  const body = panels.map((p, i) => panel({ ...p, x0: 60, y0: top + i * (h + gap), w, h, xMax, faults })).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
<text x="60" y="20" font-size="15" font-weight="bold">${esc(title)}</text>
<text x="60" y="36" font-size="11">${esc(`${result.machine.cpu}, ${result.machine.cores} cores; load ${result.machine.loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${result.machine.loadAfter.map((l) => l.toFixed(2)).join(' ')} after`)}</text>
${body}
</svg>
`;
}
