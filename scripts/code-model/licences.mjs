#!/usr/bin/env node
// The licences of the code model's training data, beside its data manifest: reads the miner's record
// (models/code-retriever.mined.json: per package its source, version, licence, pairs) and writes a
// Markdown table (models/code-retriever.LICENSES.md) that ships with the weights. Each licence is named
// again by licence.mjs from the package's copyright file or package.json when the same version is
// installed here (the record's own name otherwise).
//
// Usage: node scripts/code-model/licences.mjs [--mined FILE] [--out FILE]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { debianLicence, isLicenceName, npmLicence } from './licence.mjs';
import { opt } from './util.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const MINED = path.resolve(opt(args, '--mined', path.join(ROOT, 'models', 'code-retriever.mined.json')));
const OUT = path.resolve(opt(args, '--out', path.join(ROOT, 'models', 'code-retriever.LICENSES.md')));

let debianVersions = null;
/** The version of a Debian package installed here, or null (one dpkg-query for all packages). */
function debianVersion(pkg) {
  if (!debianVersions) {
    debianVersions = new Map();
    try {
      const out = execFileSync('dpkg-query', ['-W', '-f', '${Package} ${Version}\n'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }); // prettier-ignore
      for (const line of out.split('\n')) {
        const [name, version] = line.split(' ');
        if (name) debianVersions.set(name.split(':')[0], version);
      }
    } catch {
      /* not Debian: the recorded licences stand */
    }
  }
  return debianVersions.get(pkg) ?? null;
}

/** The licence of an npm package at the recorded version in this checkout's node_modules, or null. */
function npmInstalledLicence(name, version) {
  try {
    const json = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
    return json.version === version || version === null ? npmLicence(json) : null;
  } catch {
    return null;
  }
}

/**
 * The licence to print for a package record: read again here by licence.mjs when the same version is
 * installed (the miner before it read some licences wrongly: the stdlib's as Zope), else the recorded one.
 */
export function licenceOf(p) {
  const again =
    p.source === 'debian'
      ? debianVersion(p.name) === p.version && debianLicence(p.name).licence
      : npmInstalledLicence(p.name, p.version);
  if (isLicenceName(again)) return again;
  if (isLicenceName(p.licence)) return p.licence;
  // a copyright file that states its terms in words, with no short name: point at it
  return p.source === 'debian' ? `not named: see /usr/share/doc/${p.name}/copyright` : p.licence || 'unknown';
}

const cell = (s) => String(s ?? '–').replace(/\|/g, '\\|');

/** The Markdown of the licences table for a mined.json record. */
export function licencesMarkdown(mined) {
  const used = mined.packages.filter((p) => p.pairs > 0);
  const lines = [
    "# Licences of the code model's training data",
    '',
    'The weights in `code-retriever.bin` were trained on question → code pairs mined by',
    '`scripts/code-model/mine.mjs` from the packages below: each documented function, method or class gave',
    'its docstring / JSDoc / leading comment (the question) and its signature and body without the doc (the',
    'answer). Only the docstrings and code of these packages were used, and only to train the weights; no',
    'text of them is stored in the model file beyond its vocabulary of terms. Pairs that are exact or near',
    'duplicates of CoSQA code, or CoSQA queries, were dropped by the miner and refused by the trainer.',
    '',
    `Mined with seed ${mined.seed}${mined.sample ? `, at most ${mined.sample} files per root` : ''}: ${mined.pairs} pairs ` +
      `(${Object.entries(mined.byLanguage ?? {})
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}) from ${used.length} packages; ` +
      `pairs file sha256 \`${mined.pairsSha256}\`. Packages read that gave no pair are not listed. ` +
      'Regenerate with `node scripts/code-model/licences.mjs` (docs/code-context.md#the-model).',
    '',
    '| package | source | version | licence | pairs |',
    '|---|---|---|---|---:|',
    ...used.map((p) => `| ${cell(p.name)} | ${p.source} | ${cell(p.version)} | ${cell(licenceOf(p))} | ${p.pairs} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const mined = JSON.parse(fs.readFileSync(MINED, 'utf8'));
  fs.writeFileSync(OUT, licencesMarkdown(mined));
  const unknown = mined.packages.filter((p) => p.pairs > 0 && !isLicenceName(licenceOf(p)));
  console.error(
    `licences: ${path.relative(process.cwd(), OUT)}: ${mined.packages.filter((p) => p.pairs > 0).length} packages` +
      (unknown.length ? `; licence not named for ${unknown.map((p) => p.name).join(', ')}` : ''),
  );
}
