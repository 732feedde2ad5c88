import { describe, expect, it } from 'vitest';
import { centroid, cosine, createLexicalModel, normalize, termFrequencies } from '../../../src/core/text/lexical.js';
import { terms } from '../../../src/core/text/tokenize.js';
import { denseCentroid, denseCosine } from '../../../src/core/text/vectors.js';

const norm = (v: ReadonlyMap<string, number>) => Math.sqrt([...v.values()].reduce((s, w) => s + w * w, 0));

describe('lexical vector model', () => {
  const passages = [
    ['cat', 'sat', 'mat'],
    ['dog', 'sat', 'log'],
    ['cat', 'cat', 'cat', 'purr'],
  ];
  const model = createLexicalModel(passages);

  it('computes the smoothed idf over the passages', () => {
    // N = 3: df(cat) = 2, df(sat) = 2, df(purr) = 1, df(absent) = 0.
    expect(model.size).toBe(3);
    expect(model.idf('cat')).toBeCloseTo(Math.log(4 / 3) + 1, 10);
    expect(model.idf('purr')).toBeCloseTo(Math.log(4 / 2) + 1, 10);
    expect(model.idf('absent')).toBeCloseTo(Math.log(4) + 1, 10);
  });

  it('weighs terms by (1 + ln tf) · idf and L2-normalises', () => {
    const v = model.vectorize(['cat', 'cat', 'cat', 'purr']);
    const cat = (1 + Math.log(3)) * model.idf('cat');
    const purr = model.idf('purr');
    const length = Math.hypot(cat, purr);
    expect(v.get('cat')).toBeCloseTo(cat / length, 10);
    expect(v.get('purr')).toBeCloseTo(purr / length, 10);
    expect(norm(v)).toBeCloseTo(1, 10);
  });

  it('scores with cosine in [0, 1]', () => {
    const a = model.vectorize(['cat', 'sat']);
    expect(cosine(a, a)).toBeCloseTo(1, 10);
    expect(cosine(a, model.vectorize(['dog', 'log']))).toBe(0);
    const partial = cosine(a, model.vectorize(['cat', 'mat']));
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(1);
    expect(cosine(a, new Map())).toBe(0);
  });

  it('ranks the passage that shares the rarer term higher', () => {
    const texts = ['How to configure the proxy timeout', 'The proxy forwards requests', 'Release notes for the proxy'];
    const m = createLexicalModel(texts.map(terms));
    const q = m.vectorize(terms('proxy timeout'));
    const scores = texts.map((t) => cosine(q, m.vectorize(terms(t))));
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[0]).toBeGreaterThan(scores[2]!);
  });

  it('builds weighted centroids and counts terms', () => {
    const c = centroid([new Map([['a', 1]]), new Map([['b', 1]])], [3, 1]);
    expect(c.get('a')! / c.get('b')!).toBeCloseTo(3, 10);
    expect(norm(c)).toBeCloseTo(1, 10);
    expect(termFrequencies(['a', 'b', 'a'])).toEqual(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
    expect(normalize(new Map())).toEqual(new Map());
  });
});

describe('dense vectors', () => {
  it('computes cosine and a weighted centroid of unit vectors', () => {
    expect(denseCosine([1, 0], [2, 0])).toBeCloseTo(1, 10);
    expect(denseCosine([1, 0], [0, 3])).toBe(0);
    expect(denseCosine([1, 0], [-1, 0])).toBe(-1);
    expect(denseCosine([0, 0], [1, 0])).toBe(0);
    expect(denseCosine([1], [1, 0])).toBe(0);
    expect(
      denseCentroid(
        [
          [2, 0],
          [0, 5],
        ],
        [1, 2],
      ),
    ).toEqual([1, 2]);
  });
});
