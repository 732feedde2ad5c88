// Metadata accuracy on the WCXB dev set: readHtmlMetadata (from dist/, so `npm run build` first) against
// the ground truth's title, author and publishDate, per field and per page kind, with the median time per
// page. Matching: title equal after normalisation (case, punctuation, spacing; "loose" also accepts one
// containing the other); author equal after normalisation (loose: containment); date on the same UTC day.
// Usage: node bench/metadata.mjs [--limit N] [--misses FIELD]   (misses on stderr; FIELD+ lists values found
// where the truth has none; last line: title=… author=… date=…)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.resolve(ROOT, '../shared/data/extraction/wcxb-dev');
const MODULE = path.join(ROOT, 'dist/core/contents/html/metadata.js');

const args = process.argv.slice(2);
const limit = Number(args[args.indexOf('--limit') + 1]) || Infinity;
const missesOf = args.includes('--misses') ? args[args.indexOf('--misses') + 1] : null;

if (!fs.existsSync(MODULE)) {
  console.error(`bench: ${MODULE} not found; run \`npm run build\` first`);
  process.exit(1);
}
const { readHtmlMetadata } = await import(MODULE);
const { parseDocument } = await import('htmlparser2');

const norm = (s) =>
  String(s ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
const loose = (a, b) => a.length > 0 && b.length > 0 && (a.includes(b) || b.includes(a));

const truth = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(DATA, 'ground-truth.json.gz'))));
const ids = Object.keys(truth).slice(0, limit);

// field → kind → counters
const stats = {};
const bump = (field, kind, key) => {
  for (const k of [kind, 'all']) {
    stats[field] ??= {};
    stats[field][k] ??= { n: 0, exact: 0, loose: 0, predicted: 0, spurious: 0, negatives: 0 };
    stats[field][k][key] += 1;
  }
};
const times = [];
const parseTimes = [];

for (const id of ids) {
  const gt = truth[id];
  const file = path.join(DATA, 'html', `${id}.html.gz`);
  if (!fs.existsSync(file)) continue;
  const html = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
  const parseStart = performance.now();
  const doc = parseDocument(html);
  const started = performance.now();
  const meta = readHtmlMetadata(doc, gt.url);
  times.push(performance.now() - started);
  parseTimes.push(started - parseStart);
  const kind = gt.pageType;

  bump('title', kind, 'n');
  const [t, tt] = [norm(meta.title), norm(gt.title)];
  if (t === tt) bump('title', kind, 'exact');
  if (t === tt || loose(t, tt)) bump('title', kind, 'loose');
  else if (missesOf === 'title') console.error(`${id}\t${gt.title}\t|\t${meta.title}`);

  for (const [field, predicted, expected] of [
    ['author', meta.author, gt.author],
    ['date', meta.publishedDate, gt.publishDate],
  ]) {
    if (!expected) {
      bump(field, kind, 'negatives');
      if (predicted) bump(field, kind, 'spurious');
      if (predicted && missesOf === `${field}+`) console.error(`${id}\t${kind}\t${gt.url}\t|\t${predicted}`);
      continue;
    }
    bump(field, kind, 'n');
    if (predicted) bump(field, kind, 'predicted');
    const hit =
      field === 'date'
        ? Boolean(predicted) && predicted.slice(0, expected.length) === expected
        : norm(predicted) === norm(expected);
    const looseHit =
      field === 'date' ? hit || nearDay(predicted, expected) : hit || loose(norm(predicted), norm(expected));
    if (hit) bump(field, kind, 'exact');
    if (looseHit) bump(field, kind, 'loose');
    if (!looseHit && missesOf === field) console.error(`${id}\t${gt.url}\t${expected}\t|\t${predicted}`);
  }
}

function nearDay(predicted, expected) {
  if (!predicted || expected.length !== 10) return false;
  const diff = Math.abs(Date.parse(predicted.slice(0, 10)) - Date.parse(expected));
  return diff <= 24 * 3600 * 1000;
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '–');
const kinds = ['all', ...new Set(ids.map((id) => truth[id].pageType))];

console.log(`# Metadata accuracy (WCXB dev, ${times.length} pages)\n`);
console.log('| field | pages with truth | exact | loose | found | spurious (truth empty) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const field of ['title', 'author', 'date']) {
  const s = stats[field].all;
  const found = field === 'title' ? '–' : pct(s.predicted, s.n);
  const spurious = field === 'title' ? '–' : `${s.spurious}/${s.negatives}`;
  console.log(`| ${field} | ${s.n} | ${pct(s.exact, s.n)} | ${pct(s.loose, s.n)} | ${found} | ${spurious} |`);
}
console.log('\nPer kind (exact / loose; pages with truth in brackets):\n');
console.log('| kind | title | author | date |');
console.log('|---|---|---|---|');
for (const kind of kinds) {
  const cell = (field) => {
    const s = stats[field]?.[kind];
    return s?.n ? `${pct(s.exact, s.n)} / ${pct(s.loose, s.n)} (${s.n})` : '–';
  };
  console.log(`| ${kind} | ${cell('title')} | ${cell('author')} | ${cell('date')} |`);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(
  `\nMedian per page: readHtmlMetadata ${median(times).toFixed(2)} ms, htmlparser2 parseDocument ${median(parseTimes).toFixed(2)} ms (for scale).`,
);
const all = (field, key) => stats[field].all[key] / stats[field].all.n;
console.log(
  `title=${all('title', 'exact').toFixed(3)} author=${all('author', 'exact').toFixed(3)} date=${all('date', 'exact').toFixed(3)}`,
);
