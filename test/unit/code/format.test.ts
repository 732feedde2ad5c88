// The /context response format with the real tokenizer: every budget holds, snippets say where they
// come from with their doc and fenced code, near-duplicates merge, and `dynamic` keeps what is relevant.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { CodeHit } from '../../../src/core/code/index/code-index.js';
import { formatContext, mergeDuplicates } from '../../../src/core/code/context/format.js';

const hit = (n: number, over: Partial<CodeHit> = {}): CodeHit => ({
  id: n,
  source: 'repo',
  path: `src/mod${n}.ts`,
  startLine: 10,
  endLine: 10 + 20,
  language: 'typescript',
  kind: 'function',
  symbol: `handler${n}`,
  doc: `Handles request kind ${n}.\nReturns the parsed body.`,
  code: Array.from({ length: 20 }, (_, i) => `  const value${n}_${i} = await read(request, ${i}); // step ${i}`).join(
    '\n',
  ),
  score: 10 - n * 0.5,
  ...over,
});

const hits = Array.from({ length: 12 }, (_, i) => hit(i + 1));

describe('context format', () => {
  it('never exceeds the token budget, at any budget', () => {
    for (const budget of [50, 60, 80, 100, 150, 200, 333, 500, 777, 1000, 2000, 5000, 100000]) {
      const out = formatContext(hits, budget, countTokens);
      expect(out.tokens).toBe(countTokens(out.text));
      expect(out.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
    }
    // a large budget holds every snippet whole
    expect(formatContext(hits, 100000, countTokens).snippets).toHaveLength(12);
  });

  it('says where each snippet comes from, explains it, and fences the code with its language', () => {
    const out = formatContext([hit(1)], 2000, countTokens).text;
    expect(out).toMatch(
      /^## handler1 — repo\/src\/mod1\.ts:10-30\nHandles request kind 1\.\nReturns the parsed body\.\n```typescript\n/,
    );
    expect(out.trimEnd().endsWith('```')).toBe(true);
    const web = formatContext([hit(2, { path: 'https://docs.example.com/guide', symbol: null, kind: 'example' })], 2000, countTokens); // prettier-ignore
    expect(web.text).toMatch(/^## https:\/\/docs\.example\.com\/guide\n/);
  });

  it('cuts the last snippet to the lines that fit instead of dropping it', () => {
    const out = formatContext([hit(1)], 150, countTokens);
    expect(out.snippets).toHaveLength(1);
    expect(out.text).toContain('…');
    expect(out.tokens).toBeLessThanOrEqual(150);
  });

  it('merges near-duplicate snippets into the best-ranked one, naming where else it is', () => {
    const twin = hit(1, { path: 'vendor/copy/mod1.ts', score: 5 });
    const merged = mergeDuplicates([hit(1), hit(2), twin]);
    expect(merged.map((m) => m.hit.path)).toEqual(['src/mod1.ts', 'src/mod2.ts']);
    expect(merged[0]!.alsoIn).toEqual(['repo/vendor/copy/mod1.ts:10-30']);
    expect(formatContext([hit(1), twin], 5000, countTokens).text).toContain('(also in repo/vendor/copy/mod1.ts:10-30)');
  });

  it('dynamic keeps the snippets close to the best one, whole', () => {
    const ranked = [hit(1, { score: 10 }), hit(2, { score: 9 }), hit(3, { score: 7 }), hit(4, { score: 3 })];
    const out = formatContext(ranked, 'dynamic', countTokens);
    expect(out.snippets.map((s) => s.symbol)).toEqual(['handler1', 'handler2', 'handler3']);
    expect(out.text).not.toContain('…');
    expect(formatContext([], 'dynamic', countTokens)).toEqual({ text: '', snippets: [], tokens: 0 });
  });
});
