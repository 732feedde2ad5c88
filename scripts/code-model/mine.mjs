#!/usr/bin/env node
// The code model's training data, mined self-supervised from sources every machine of ours has: the
// Python standard library and Debian's python3-* packages (installed with apt-get by --install), and the
// JavaScript / TypeScript of npm packages (this checkout's node_modules). Each documented function,
// method or class is chunked by Trawl's own chunker and becomes a pair: its doc's first paragraph (the
// question) and its code without the doc (the answer) (pairs.mjs). Pairs whose body is an exact or near
// duplicate of a CoSQA function, or whose question is a CoSQA query, are dropped (exclusion.mjs).
//
// Writes OUT/pairs.jsonl.gz (one pair per line, in a seeded order) and OUT/mined.json (what was read,
// per package: where from, version, licence, files, pairs, excluded). docs/code-context.md#the-model.
//
// Usage: npm run build && node scripts/code-model/mine.mjs [--install] [--out DIR] [--sample N]
//   [--python DIR]… [--node DIR]… [--seed N]
//   --install    apt-get install the packages of python-packages.txt first (root, Debian)
//   --sample N   read at most N files per root (CI: a small sample in seconds)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadExclusion } from './exclusion.mjs';
import { debianLicence, npmLicence } from './licence.mjs';
import { pairsOfChunks } from './pairs.mjs';
import { flag, opt, opts, seededShuffle } from './util.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const args = process.argv.slice(2);
const OUT = path.resolve(opt(args, '--out', path.join(ROOT, '.cache', 'code-model')));
const SAMPLE = Number(opt(args, '--sample', 0)) || Infinity;
const SEED = Number(opt(args, '--seed', 1));
const PYTHON_ROOTS = opts(args, '--python', ['/usr/lib/python3.11', '/usr/lib/python3/dist-packages']);
const NODE_ROOTS = opts(args, '--node', [path.join(ROOT, 'node_modules')]);
const COSQA = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa');
const MAX_FILE_BYTES = 512 * 1024;

const dist = path.join(ROOT, 'dist', 'core', 'code', 'chunk', 'chunk.js');
if (!fs.existsSync(dist)) {
  console.error('mine: dist/ not found; run `npm run build` first');
  process.exit(1);
}
const { chunkFile } = await import(dist);

if (flag(args, '--install')) {
  const packages = fs
    .readFileSync(path.join(HERE, 'python-packages.txt'), 'utf8')
    .split(/\s+/)
    .filter((w) => w && !w.startsWith('#'));
  console.error(`mine: apt-get install ${packages.length} packages`);
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit' });
}

// ---------------------------------------------------------------------------------------------------
// Where a file comes from: its Debian package (dpkg's file lists) or npm package (nearest package.json)

/** Debian: file → package, and each package's version and licence. */
function debianIndex() {
  const owner = new Map();
  const info = '/var/lib/dpkg/info';
  if (!fs.existsSync(info)) return { owner, version: () => null };
  for (const name of fs.readdirSync(info)) {
    if (!name.endsWith('.list')) continue;
    const pkg = name.slice(0, -5).split(':')[0];
    for (const line of fs.readFileSync(path.join(info, name), 'utf8').split('\n')) {
      if (line.endsWith('.py')) owner.set(line, pkg);
    }
  }
  let versions = null;
  const version = (pkg) => {
    if (!versions) {
      versions = new Map();
      const out = execFileSync('dpkg-query', ['-W', '-f', '${Package} ${Version}\n'], { encoding: 'utf8' });
      for (const line of out.split('\n')) {
        const [p, v] = line.split(' ');
        if (p) versions.set(p.split(':')[0], v);
      }
    }
    return versions.get(pkg) ?? null;
  };
  return { owner, version };
}

/**
 * npm: the package's own package.json above a file inside node_modules (one with a name and a version: the
 * nested `{"name", "type"}` manifests of a package's esm/ or cjs/ folder do not say its licence).
 */
function npmPackageOf(file, cache) {
  let dir = path.dirname(file);
  while (dir.includes('node_modules')) {
    if (cache.has(dir)) return cache.get(dir);
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        const json = JSON.parse(fs.readFileSync(pj, 'utf8'));
        if (json.name && json.version) {
          const info = { name: json.name, version: json.version, licence: npmLicence(json) };
          cache.set(dir, info);
          return info;
        }
      } catch {
        /* not a package's manifest */
      }
    }
    dir = path.dirname(dir);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Walking

const SKIP_DIRS = new Set(['__pycache__', '.git', 'dist-info', 'egg-info', 'coverage', '.cache']);
const PY = /\.py$/;
const JS = /\.(?:[cm]?js|tsx?|jsx)$/;
const SKIP_FILE = /\.min\.js$|\.d\.[cm]?ts$|\.bundle\.js$/;

function* walk(root, pattern) {
  const stack = [root];
  const seen = new Set();
  while (stack.length > 0) {
    const dir = stack.pop();
    let real;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !/\.(?:dist|egg)-info$/.test(e.name)) stack.push(p);
      } else if (e.isFile() && pattern.test(e.name) && !SKIP_FILE.test(e.name)) yield p;
    }
  }
}

// ---------------------------------------------------------------------------------------------------

const started = performance.now();
const exclusion = loadExclusion(COSQA);
console.error(`mine: excluding CoSQA's ${exclusion.bodies} bodies and ${exclusion.queries} queries`);
const debian = debianIndex();
const npmCache = new Map();
const packages = new Map(); // name → {source, version, licence, licenceFile, files, pairs, excluded}
const seenBodies = new Set();
const pairs = [];
const excluded = { exact: 0, near: 0, query: 0, duplicate: 0 };

function packageOf(file, kind) {
  if (kind === 'python') {
    const pkg = debian.owner.get(file) ?? 'unpackaged-python';
    let p = packages.get(pkg);
    if (!p) {
      const { licence, file: licenceFile } =
        pkg === 'unpackaged-python' ? { licence: 'unknown', file: null } : debianLicence(pkg);
      p = {
        name: pkg,
        source: 'debian',
        version: debian.version(pkg),
        licence,
        licenceFile,
        files: 0,
        pairs: 0,
        excluded: 0,
      };
      packages.set(pkg, p);
    }
    return p;
  }
  const info = npmPackageOf(file, npmCache) ?? { name: 'unpackaged-js', version: null, licence: 'unknown' };
  let p = packages.get(`npm:${info.name}`);
  if (!p) {
    p = {
      name: info.name,
      source: 'npm',
      version: info.version,
      licence: info.licence,
      licenceFile: null,
      files: 0,
      pairs: 0,
      excluded: 0,
    };
    packages.set(`npm:${info.name}`, p);
  }
  return p;
}

for (const [roots, pattern, kind] of [
  [PYTHON_ROOTS, PY, 'python'],
  [NODE_ROOTS, JS, 'js'],
]) {
  for (const root of roots) {
    if (!fs.existsSync(root)) {
      console.error(`mine: ${root} not found; skipped`);
      continue;
    }
    let files = 0;
    for (const file of walk(root, pattern)) {
      if (files >= SAMPLE) break;
      let text;
      try {
        if (fs.statSync(file).size > MAX_FILE_BYTES) continue;
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      files++;
      const pkg = packageOf(file, kind);
      pkg.files++;
      for (const pair of pairsOfChunks(chunkFile(file, text))) {
        const key = createHash('sha1').update(pair.code.replace(/\s+/g, ' ')).digest('hex');
        if (seenBodies.has(key)) {
          excluded.duplicate++;
          continue;
        }
        seenBodies.add(key);
        const why = exclusion.check(pair.code, pair.q);
        if (why) {
          excluded[why]++;
          pkg.excluded++;
          continue;
        }
        pkg.pairs++;
        pairs.push({
          ...pair,
          pkg: pkg.source === 'npm' ? `npm:${pkg.name}` : pkg.name,
          file: path.relative(root, file),
        });
      }
      if (files % 2000 === 0) console.error(`mine: ${root}: ${files} files, ${pairs.length} pairs so far`);
    }
    console.error(`mine: ${root}: ${files} files`);
  }
}

seededShuffle(pairs, SEED);
fs.mkdirSync(OUT, { recursive: true });
const body = gzipSync(Buffer.from(pairs.map((p) => JSON.stringify(p)).join('\n') + '\n'));
fs.writeFileSync(path.join(OUT, 'pairs.jsonl.gz'), body);
const list = [...packages.values()]
  .filter((p) => p.files > 0)
  .sort((a, b) => b.pairs - a.pairs || (a.name < b.name ? -1 : 1));
const byLanguage = {};
for (const p of pairs) byLanguage[p.lang] = (byLanguage[p.lang] ?? 0) + 1;
const mined = {
  about: 'What scripts/code-model/mine.mjs read and kept: docs/code-context.md#the-model',
  seed: SEED,
  sample: Number.isFinite(SAMPLE) ? SAMPLE : null,
  roots: { python: PYTHON_ROOTS, node: NODE_ROOTS.map((r) => path.relative(ROOT, r) || '.') },
  pairs: pairs.length,
  byLanguage,
  excluded,
  pairsSha256: createHash('sha256').update(body).digest('hex'),
  packages: list,
};
fs.writeFileSync(path.join(OUT, 'mined.json'), JSON.stringify(mined, null, 1) + '\n');
console.error(
  `mine: ${pairs.length} pairs from ${list.length} packages in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `excluded ${excluded.exact} exact and ${excluded.near} near duplicates of CoSQA, ${excluded.query} CoSQA queries, ` +
    `${excluded.duplicate} repeated bodies → ${path.relative(ROOT, OUT)}`,
);
