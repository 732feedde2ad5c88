/**
 * The code model's pipeline end to end on a small sample, as CI runs it: the miner (scripts/code-model/
 * mine.mjs) mines pairs with each package's source, version and licence; the licences table names a
 * licence for every package that gave pairs; the trainer (train.mjs) writes a model that loads and embeds
 * deterministically, byte for byte the same on a second run with the same seed; and the CoSQA exclusion
 * check fails the trainer when a CoSQA body is slipped into its pairs, exact or lightly edited. The
 * scripts run against dist/ (`npm test` builds first); CoSQA is read from ../shared at test time.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCodeModel } from '../../../src/core/code/model/code-model.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const SCRIPTS = path.join(ROOT, 'scripts', 'code-model');
const COSQA = path.resolve(ROOT, '..', 'shared', 'data', 'cosqa', 'code.jsonl.gz');
const PYTHON = '/usr/lib/python3.11';
const hasPython = fs.existsSync(PYTHON);
if (!hasPython) console.warn(`code-model pipeline test skipped: ${PYTHON} (the miner's Python sources) is absent`);

interface Pair {
  q: string;
  code: string;
  lang: string;
}
interface PackageRecord {
  name: string;
  source: string;
  version: string | null;
  licence: string;
  pairs: number;
}

/** Runs a script of scripts/code-model with node; its exit status and stderr. */
function script(name: string, args: string[]) {
  const r = spawnSync(process.execPath, [path.join(SCRIPTS, name), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

/** The same, without blocking: two trainings run side by side. */
function scriptAsync(name: string, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(SCRIPTS, name), ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] }); // prettier-ignore
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

const readPairs = (file: string): Pair[] =>
  gunzipSync(fs.readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Pair);
const writePairs = (file: string, pairs: Pair[]) =>
  fs.writeFileSync(file, gzipSync(Buffer.from(pairs.map((p) => JSON.stringify(p)).join('\n') + '\n')));
const TRAIN = ['--dims', '16', '--epochs', '1', '--limit', '2000', '--vocab', '5000', '--seed', '7'];

/** The licence cell of each row of a licences table, by package name. */
function licenceRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length === 7 && /^\d+$/.test(cells[5]!)) rows.set(cells[1]!, cells[4]!);
  }
  return rows;
}

describe.skipIf(!hasPython)('code model pipeline: mine, license, train, exclude', { timeout: 60_000 }, () => {
  let dir: string;
  let mined: { pairs: number; packages: PackageRecord[] };

  beforeAll(() => {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'core', 'code', 'model', 'code-model.js'))) {
      throw new Error('dist/ is not built: run `npm run build` (npm test does) before this test');
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-model-'));
    const r = script('mine.mjs', ['--sample', '20', '--out', dir]);
    expect(r.status, r.stderr).toBe(0);
    mined = JSON.parse(fs.readFileSync(path.join(dir, 'mined.json'), 'utf8'));
  }, 60_000);
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mines pairs, each package recorded with its source, version and licence', () => {
    const pairs = readPairs(path.join(dir, 'pairs.jsonl.gz'));
    expect(pairs.length).toBe(mined.pairs);
    expect(pairs.length).toBeGreaterThan(100);
    for (const p of pairs.slice(0, 50)) expect(p.q.length > 0 && p.code.length > 0).toBe(true);
    const used = mined.packages.filter((p) => p.pairs > 0);
    expect(used.some((p) => p.source === 'debian')).toBe(true);
    for (const p of used) {
      expect(['debian', 'npm'], p.name).toContain(p.source);
      expect(p.version, p.name).toBeTruthy();
      expect(typeof p.licence, p.name).toBe('string');
    }
  });

  it('names a licence for every package with pairs (licences.mjs), for this sample and the shipped model', () => {
    const out = path.join(dir, 'LICENSES.md');
    const r = script('licences.mjs', ['--mined', path.join(dir, 'mined.json'), '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const cases: [PackageRecord[], string][] = [[mined.packages, fs.readFileSync(out, 'utf8')]];
    const shipped = path.join(ROOT, 'models', 'code-retriever.mined.json');
    const shippedTable = path.join(ROOT, 'models', 'code-retriever.LICENSES.md');
    const shippedRecord = JSON.parse(fs.readFileSync(shipped, 'utf8')) as { packages: PackageRecord[] };
    cases.push([shippedRecord.packages, fs.readFileSync(shippedTable, 'utf8')]);
    for (const [packages, markdown] of cases) {
      const rows = licenceRows(markdown);
      for (const p of packages.filter((x) => x.pairs > 0)) {
        expect(rows.get(p.name.replace(/\|/g, '\\|')), `${p.name} has no licence row`).toMatch(/\S/);
      }
    }
  });

  it('trains a model that loads, embeds deterministically, and is byte-identical on a second run', async () => {
    const pairs = path.join(dir, 'pairs.jsonl.gz');
    const runs = await Promise.all(
      ['a.bin', 'b.bin'].map((name) => scriptAsync('train.mjs', ['--pairs', pairs, '--out', path.join(dir, name), ...TRAIN])), // prettier-ignore
    );
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const [a, b] = ['a.bin', 'b.bin'].map((name) => fs.readFileSync(path.join(dir, name)));
    expect(a!.equals(b!)).toBe(true);
    const summary = JSON.parse(fs.readFileSync(path.join(dir, 'a.bin.json'), 'utf8')) as { version: string };
    const model = parseCodeModel(a!);
    expect(model.dims).toBe(16);
    expect(model.version).toBe(summary.version);
    const first = readPairs(pairs)[0]!;
    for (const embed of [model.embedQuery, model.embedCode]) {
      const once = embed(first.q + '\n' + first.code);
      expect(Array.from(embed(first.q + '\n' + first.code))).toEqual(Array.from(once));
      expect(Math.hypot(...once)).toBeCloseTo(1, 5);
    }
    // a second load of the same bytes embeds the same
    expect(Array.from(parseCodeModel(b!).embedQuery(first.q))).toEqual(Array.from(model.embedQuery(first.q)));
  });

  describe('the exclusion check fails the trainer', () => {
    /** CoSQA bodies, read at test time (never copied into the project), longest first. */
    const cosqaBodies = () =>
      gunzipSync(fs.readFileSync(COSQA))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { code: string }).code)
        .sort((x, y) => y.length - x.length || (x < y ? -1 : 1));

    /** Trains on the sample's pairs with `intruder` slipped into the middle; the trainer's result. */
    function trainWith(intruder: Pair, name: string) {
      const pairs = readPairs(path.join(dir, 'pairs.jsonl.gz')).slice(0, 300);
      pairs.splice(150, 0, intruder);
      const file = path.join(dir, `${name}.jsonl.gz`);
      writePairs(file, pairs);
      return script('train.mjs', ['--pairs', file, '--out', path.join(dir, `${name}.bin`), ...TRAIN]);
    }

    it('on an exact CoSQA body', () => {
      const body = cosqaBodies()[100]!;
      const r = trainWith({ q: 'Return the thing.', code: body, lang: 'python' }, 'exact');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/refused: the pairs hold 1 exact and 0 near duplicates/);
      expect(fs.existsSync(path.join(dir, 'exact.bin'))).toBe(false);
    });

    it('on a lightly edited CoSQA body (variables renamed in a few places)', () => {
      // a long body, with its first parameter renamed at its first three uses
      const body = cosqaBodies().find((b) => b.length > 1500 && /def \w+\((?:self, )?(\w{3,})/.test(b))!;
      const name = /def \w+\((?:self, )?(\w{3,})/.exec(body)![1]!;
      let renamed = 0;
      const edited = body.replace(new RegExp(`\\b${name}\\b`, 'g'), (m) => (renamed++ < 3 ? `${m}_renamed` : m));
      expect(edited).not.toBe(body);
      const r = trainWith({ q: 'Do what the function does.', code: edited, lang: 'python' }, 'near');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/refused: the pairs hold 0 exact and 1 near duplicates/);
      expect(fs.existsSync(path.join(dir, 'near.bin'))).toBe(false);
    });
  });
});
