// The evaluation set kept out of the training data: CoSQA's code bodies (exact and near-duplicate) and
// its queries. The miner drops what matches; the trainer checks again and fails on any match, so a
// model is never trained on what it is measured with. Reads ../shared/data/cosqa (never copied).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bareCode } from './pairs.mjs';

/** Jaccard similarity of 4-token shingles at or above which two bodies are near-duplicates. */
export const NEAR_DUPLICATE = 0.7;
const SHINGLE = 4;
const BANDS = 16;
const ROWS = 4;
const HASHES = BANDS * ROWS;

const sha1 = (s) => createHash('sha1').update(s).digest('hex');
const TOKEN = /[a-z_][a-z0-9_]*|\d+|[^\s\w]/g;

/** The 4-token shingles of a body, as 32-bit hashes. */
function shingles(bare) {
  const tokens = bare.match(TOKEN) ?? [];
  const out = new Set();
  if (tokens.length < SHINGLE) {
    if (tokens.length > 0) out.add(fnv(tokens.join(' ')));
    return out;
  }
  for (let i = 0; i + SHINGLE <= tokens.length; i++) out.add(fnv(tokens.slice(i, i + SHINGLE).join(' ')));
  return out;
}

function fnv(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Fixed multipliers for the min-hash permutations (a seeded LCG: the same on every machine).
const SEEDS = (() => {
  const a = new Uint32Array(HASHES * 2);
  let x = 12345;
  for (let i = 0; i < a.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    a[i] = x | 1;
  }
  return a;
})();

function minHash(set) {
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  for (const h of set) {
    for (let i = 0; i < HASHES; i++) {
      const v = (Math.imul(h ^ SEEDS[2 * i + 1], SEEDS[2 * i]) ^ (h >>> 13)) >>> 0;
      if (v < sig[i]) sig[i] = v;
    }
  }
  return sig;
}

function jaccard(a, b) {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter || 1);
}

const normalQuery = (q) =>
  q
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** The exclusion set of the CoSQA data at `dir`: `check(code, question)` names why a pair must go, or null. */
export function loadExclusion(dir) {
  const bodies = gunzipSync(fs.readFileSync(path.join(dir, 'code.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).code);
  const queries = new Set();
  for (const name of fs.readdirSync(dir).filter((f) => /^queries.*\.tsv$/.test(f))) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      const text = line.split('\t')[1];
      if (text) queries.add(normalQuery(text));
    }
  }
  const exact = new Set();
  const sets = [];
  const buckets = new Map();
  for (const body of bodies) {
    const bare = bareCode(body);
    exact.add(sha1(bare));
    const set = shingles(bare);
    const id = sets.push(set) - 1;
    const sig = minHash(set);
    for (let b = 0; b < BANDS; b++) {
      const key = `${b}:${sig.slice(b * ROWS, b * ROWS + ROWS).join(',')}`;
      const list = buckets.get(key);
      if (list) list.push(id);
      else buckets.set(key, [id]);
    }
  }
  return {
    bodies: bodies.length,
    queries: queries.size,
    /** Why this pair may not be trained on ('exact', 'near', 'query'), or null. */
    check(code, question) {
      if (question && queries.has(normalQuery(question))) return 'query';
      const bare = bareCode(code);
      if (exact.has(sha1(bare))) return 'exact';
      const set = shingles(bare);
      const sig = minHash(set);
      const seen = new Set();
      for (let b = 0; b < BANDS; b++) {
        for (const id of buckets.get(`${b}:${sig.slice(b * ROWS, b * ROWS + ROWS).join(',')}`) ?? []) {
          if (seen.has(id)) continue;
          seen.add(id);
          if (jaccard(set, sets[id]) >= NEAR_DUPLICATE) return 'near';
        }
      }
      return null;
    },
  };
}
