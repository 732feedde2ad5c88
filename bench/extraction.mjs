// Main-content extraction: quality (the shared scorers) and speed, Trawl's extractor side by side with
// linkedom + @mozilla/readability, on the scrapinghub and WCXB-dev benchmark pages in ../shared/data.
// Usage: npm run build && node bench/extraction.mjs [--dataset scrapinghub|wcxb|all] [--limit N]
//        [--render text|markdown|both] [--no-baseline] [--keep DIR]
// Prints Markdown tables; the last line is `scrapinghub_f1=… wcxb_f1=… speedup=…`.
// Scored rendering: `text` is mainText(page), the plain main content (what documents index; the title
// heading is left out, the title field carries it). `markdown` is renderText compact; its link URLs and
// markup are words to a word-bag scorer, so it scores lower on the same extraction.
// Speed: each page is extracted by every extractor in turn, in this process; the time per page covers
// parsing, extraction and rendering, never the gunzip or the file read. `speedup` is Readability's
// median over ours, over all pages run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, fmt, machineLine, makeTmpDir, mdTable, summarize } from './lib.mjs';
import { DATASETS, loadPages } from './extraction-data.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const datasetArg = opt('--dataset', 'all');
const limit = Number(opt('--limit', '0')) || Infinity;
const renderArg = opt('--render', 'text');
const withBaseline = !args.includes('--no-baseline');
const keepDir = opt('--keep', null);
const SCORER = path.resolve(ROOT, '..', 'shared', 'bench', 'score-extraction.mjs');

const distExtract = path.join(ROOT, 'dist', 'core', 'contents', 'html', 'extract.js');
const distRender = path.join(ROOT, 'dist', 'core', 'contents', 'render.js');
if (!fs.existsSync(distExtract) || !fs.existsSync(distRender)) {
  console.error('bench: dist/core/contents not built; run `npm run build` first');
  process.exit(1);
}
const { extractHtml } = await import(distExtract);
const { renderText, mainText } = await import(distRender);

/** The extractors under test: each maps (html, url) to the text that is scored. */
const renders = {
  text: (page) => mainText(page),
  markdown: (page) => renderText(page, { verbosity: 'compact' }),
};
const extractors = {};
for (const name of renderArg === 'both' ? ['text', 'markdown'] : [renderArg]) {
  if (!renders[name]) throw new Error(`--render: unknown rendering ${name}`);
  extractors[`trawl (${name})`] = (html, url) => renders[name](extractHtml(html, url));
}
if (withBaseline) {
  const { parseHTML } = await import('linkedom');
  const { Readability } = await import('@mozilla/readability');
  extractors['linkedom+Readability'] = (html) => {
    const { document } = parseHTML(html);
    return new Readability(document).parse()?.textContent ?? '';
  };
}

/** Runs every extractor over the pages; times parse+extract per page (gunzip and file IO excluded). */
function runDataset(ds) {
  const preds = Object.fromEntries(Object.keys(extractors).map((n) => [n, {}]));
  const times = Object.fromEntries(Object.keys(extractors).map((n) => [n, []]));
  let done = 0;
  for (const { id, html, url } of loadPages(ds, limit)) {
    for (const [name, fn] of Object.entries(extractors)) {
      const t0 = performance.now();
      let text = '';
      try {
        text = fn(html, url);
      } catch (err) {
        console.error(`bench: ${name} failed on ${ds.name}/${id}: ${err?.message ?? err}`);
      }
      times[name].push(performance.now() - t0);
      preds[name][id] = text;
    }
    if (++done % 100 === 0) process.stderr.write(`bench: ${ds.name} ${done} pages\n`);
  }
  return { preds, times, pages: done };
}

function score(ds, pred, dir, name) {
  const file = path.join(dir, `${ds.name}-${name.replace(/[^a-z0-9]+/gi, '_')}.json`);
  fs.writeFileSync(file, JSON.stringify(pred));
  let truth = ds.truth;
  if (Number.isFinite(limit)) {
    // score only the pages that ran: a truncated ground truth next to the predictions
    const full = ds.readTruth();
    const subset = Object.fromEntries(Object.keys(pred).map((id) => [id, full[id]]));
    truth = path.join(dir, `${ds.name}-truth.json`);
    fs.writeFileSync(truth, JSON.stringify(subset));
  }
  const out = execFileSync(process.execPath, [SCORER, '--dataset', ds.scorer, '--truth', truth, '--pred', file], {
    encoding: 'utf8',
  });
  const f1 = Number(/f1=([\d.]+)\s*$/.exec(out)?.[1]);
  return { out: out.trimEnd(), f1 };
}

const dir = keepDir ? (fs.mkdirSync(keepDir, { recursive: true }), keepDir) : makeTmpDir('trawl-extraction-');
const selected = DATASETS.filter((d) => datasetArg === 'all' || d.name === datasetArg || d.scorer === datasetArg);
if (selected.length === 0) throw new Error(`--dataset: unknown dataset ${datasetArg}`);

console.log('# Main-content extraction\n');
console.log(machineLine());
const headline = {};
const allTimes = Object.fromEntries(Object.keys(extractors).map((n) => [n, []]));
for (const ds of selected) {
  process.stderr.write(`bench: ${ds.name}\n`);
  const { preds, times, pages } = runDataset(ds);
  const rows = [];
  const details = [];
  for (const name of Object.keys(extractors)) {
    const s = score(ds, preds[name], dir, name);
    const t = summarize(times[name]);
    allTimes[name].push(...times[name]);
    rows.push([name, s.f1.toFixed(4), fmt(t.median, 2), fmt(t.p90, 2)]);
    details.push(`### ${ds.name}: ${name}\n\n\`\`\`\n${s.out}\n\`\`\``);
    if (name.startsWith('trawl') && headline[ds.name] === undefined) headline[ds.name] = s.f1;
  }
  console.log(`\n## ${ds.name} (${pages} pages)\n`);
  console.log(mdTable(['extractor', 'F1', 'median ms/page', 'p90 ms/page'], rows));
  console.log(`\n${details.join('\n\n')}`);
}

const names = Object.keys(extractors);
const ours = summarize(allTimes[names[0]]);
console.log('\n## Speed over all pages (parse + extract + render, per page)\n');
const speedRows = names.map((n) => {
  const t = summarize(allTimes[n]);
  return [n, String(t.n), fmt(t.median, 2), fmt(t.p90, 2), (t.median / ours.median).toFixed(2)];
});
console.log(mdTable(['extractor', 'pages', 'median ms', 'p90 ms', 'median vs trawl'], speedRows));
const base = withBaseline ? summarize(allTimes['linkedom+Readability']) : null;
const speedup = base ? (base.median / ours.median).toFixed(2) : 'n/a';
const parts = Object.entries(headline).map(([k, v]) => `${k.replace(/-dev$/, '')}_f1=${v.toFixed(4)}`);
console.log(`\n${[...parts, `speedup=${speedup}`].join(' ')}`);
