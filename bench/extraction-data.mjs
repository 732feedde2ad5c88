// The extraction benchmark data in ../shared/data/extraction (read in place, never copied): page ids,
// URLs and gunzipped HTML, one page at a time so the 400 MB of WCXB HTML is never held at once.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ROOT } from './lib.mjs';

const DATA = path.resolve(ROOT, '..', 'shared', 'data', 'extraction');

const readJson = (file) => {
  const raw = fs.readFileSync(file);
  return JSON.parse((file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'));
};

function dataset(name, scorer, truthFile) {
  const truth = path.join(DATA, name, truthFile);
  let cache = null;
  return { name, scorer, truth, dir: path.join(DATA, name, 'html'), readTruth: () => (cache ??= readJson(truth)) };
}

/** The two benchmarks: folder name, the scorer's `--dataset` value, the ground truth file. */
export const DATASETS = [
  dataset('scrapinghub', 'scrapinghub', 'ground-truth.json'),
  dataset('wcxb-dev', 'wcxb', 'ground-truth.json.gz'),
];

/** Yields `{id, url, html}` for the first `limit` pages of a dataset (in ground-truth order). */
export function* loadPages(ds, limit = Infinity) {
  const truth = ds.readTruth();
  let n = 0;
  for (const [id, entry] of Object.entries(truth)) {
    if (n++ >= limit) return;
    const file = path.join(ds.dir, `${id}.html.gz`);
    const html = fs.existsSync(file) ? gunzipSync(fs.readFileSync(file)).toString('utf8') : '';
    // a few WCXB pages have no URL; the extractors need an absolute one to resolve links against
    yield { id, url: entry.url || `https://unknown.invalid/${id}`, html };
  }
}
