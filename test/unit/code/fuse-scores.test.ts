/**
 * The hybrid ranking's fusion (src/core/code/context/fuse-scores.ts): lexical scores scaled to the best,
 * plus the weighted cosine; a chunk missing from the dense list gets that list's lowest cosine; one the
 * lexical index did not find joins only when the model finds it near enough.
 */
import { describe, expect, it } from 'vitest';
import { MIN_DENSE_COSINE, fuseScores } from '../../../src/core/code/context/fuse-scores.js';

describe('fuseScores', () => {
  it('adds the weighted cosine to the lexical score scaled to the best one', () => {
    const fused = fuseScores(
      [
        { key: 'a', score: 10 },
        { key: 'b', score: 9 },
      ],
      [
        { key: 'b', cosine: 0.6 },
        { key: 'a', cosine: 0.2 },
      ],
      1,
    );
    expect(fused.map((f) => f.key)).toEqual(['b', 'a']);
    expect(fused[0]!.score).toBeCloseTo(0.9 + 0.6);
    expect(fused[1]!.score).toBeCloseTo(1 + 0.2);
  });

  it("gives a chunk the dense list lacks that list's lowest cosine", () => {
    const fused = fuseScores(
      [{ key: 'a', score: 5 }],
      [
        { key: 'x', cosine: 0.5 },
        { key: 'y', cosine: 0.3 },
      ],
      1,
    );
    expect(fused.find((f) => f.key === 'a')!.score).toBeCloseTo(1 + 0.3);
  });

  it('lets in a chunk only the model found when its cosine reaches MIN_DENSE_COSINE, and none below', () => {
    const near = MIN_DENSE_COSINE + 0.05;
    const far = MIN_DENSE_COSINE - 0.05;
    expect(
      fuseScores(
        [],
        [
          { key: 'near', cosine: near },
          { key: 'far', cosine: far },
        ],
        1,
      ),
    ).toEqual([{ key: 'near', score: near }]);
    expect(fuseScores([], [{ key: 'far', cosine: far }], 1)).toEqual([]);
  });
});
