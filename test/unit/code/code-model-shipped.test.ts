/**
 * The shipped code model (models/code-retriever.bin): the file is the one its training summary
 * (models/code-retriever.bin.json, written by the trainer beside it) describes, small enough to ship,
 * and inference is deterministic with unit vectors. Holds for any model file of the format.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCodeModel } from '../../../src/core/code/model/code-model.js';

const MODEL = path.resolve(import.meta.dirname, '..', '..', '..', 'models', 'code-retriever.bin');
const MAX_BYTES = 25e6;
const summary = JSON.parse(fs.readFileSync(`${MODEL}.json`, 'utf8')) as {
  sha256: string;
  bytes: number;
  version: string;
  dims: number;
};

const QUERIES = ['python check if a file is a symlink', 'where do we check that a key may spend?', 'parse json'];
const CODE = [
  'def is_link(path):\n    return os.path.islink(path)',
  'export function spendable(key: Key, cost: number): boolean {\n  return key.credits >= cost;\n}',
];

const norm = (v: Float32Array) => Math.hypot(...v);

describe('the shipped code model', () => {
  it('is the file its summary describes (sha256, size), at most 25 MB', () => {
    const bytes = fs.readFileSync(MODEL);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(summary.sha256);
    expect(bytes.length).toBe(summary.bytes);
    expect(bytes.length).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('loads with the version and dimensions of its summary', () => {
    const model = loadCodeModel(MODEL);
    expect(model.version).toBe(summary.version);
    expect(model.version).toBe(`trawl-code-${summary.sha256.slice(0, 12)}`);
    expect(model.dims).toBe(summary.dims);
  });

  it('embeds the same texts to identical unit vectors, twice and across loads', () => {
    const [a, b] = [loadCodeModel(MODEL), loadCodeModel(MODEL)];
    const chunk = { symbol: 'is_link', doc: 'Whether path is a symbolic link.', code: CODE[0]!, language: 'python' };
    const runs = [a, a, b].map((m) => [
      ...QUERIES.map((q) => m.embedQuery(q)),
      ...CODE.map((c) => m.embedCode(c)),
      m.embedChunk(chunk),
    ]);
    for (const run of runs.slice(1)) {
      run.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(runs[0]![i]!)));
    }
    for (const v of runs[0]!) {
      expect(v.length).toBe(summary.dims);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });
});
