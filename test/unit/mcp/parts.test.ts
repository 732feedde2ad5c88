/** The part fitter: budgets counted with the real tokenizer, clean cuts, and parts that join exactly. */
import { countTokens as wholeCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { piecewise } from '../../../src/lib/tokens.js';
import { cutAt, fitPart, type Position } from '../../../src/mcp/reply/parts.js';
import type { Answer } from '../../../src/ops/reply.js';

// the door's counter; budgets are checked with the whole-text count as well
const countTokens = piecewise(wholeCount);
const paragraph = (i: number) => `Paragraph ${i}: ${'the quick brown fox jumps over the lazy dog. '.repeat(12)}`;
const page = (n: number) => Array.from({ length: n }, (_, i) => paragraph(i)).join('\n\n');

function answerOf(texts: string[]): Answer {
  return {
    head: `${texts.length} results`,
    blocks: texts.map((t, i) => ({ label: `[${i + 1}]`, source: `https://example.com/${i}`, content: t, entry: { id: `d${i}`, url: `https://example.com/${i}` } })), // prettier-ignore
    tail: 'Done.',
    structured: { requestId: 'r1' },
    entriesKey: 'results',
  };
}

/** Every part of `answer` at `maxTokens`, following the positions as a cursor would. */
function allParts(answer: Answer, maxTokens: number) {
  const parts = [];
  let start: Position | null = { block: 0, offset: 0 };
  for (let partNo = 1; start && partNo < 500; partNo++) {
    const part = fitPart(answer, {
      maxTokens,
      count: countTokens,
      start,
      partNo,
      cursorFor: (p) => `ans.${'0'.repeat(24)}.${p.block}.${p.offset}.${partNo + 1}`,
      continueLine: (p) => `[continue with cursor ans.${'0'.repeat(24)}.${p.block}.${p.offset}.${partNo + 1}]`,
    });
    parts.push(part);
    start = part.next;
  }
  return parts;
}

/** The content of each block, rebuilt from the fenced slices of every part. */
function rejoin(texts: string[]): string[] {
  const joined = new Map<string, string>();
  for (const text of texts) {
    for (const m of text.matchAll(/<untrusted-([0-9a-f]{12}) source="([^"]+)">\n([\s\S]*?)\n<\/untrusted-\1>/g)) {
      joined.set(m[2]!, (joined.get(m[2]!) ?? '') + m[3]!);
    }
  }
  return [...joined.values()];
}

describe('fitPart', () => {
  it('keeps each part within the budget, text and structured content together', () => {
    const texts = [page(30), page(5), page(60)];
    for (const maxTokens of [500, 1500, 6000]) {
      for (const part of allParts(answerOf(texts), maxTokens)) {
        expect(wholeCount(part.text) + wholeCount(JSON.stringify(part.structured))).toBeLessThanOrEqual(maxTokens);
      }
    }
  });

  it('gives every block exactly once, in order, and every entry once, across the parts', () => {
    const texts = [page(30), 'short one', page(60), page(2)];
    const parts = allParts(answerOf(texts), 1200);
    expect(parts.length).toBeGreaterThan(3);
    expect(rejoin(parts.map((p) => p.text))).toEqual(texts);
    const ids = parts.flatMap((p) => (p.structured.results as { id: string }[]).map((r) => r.id));
    expect(ids).toEqual(['d0', 'd1', 'd2', 'd3']);
    expect(parts.at(-1)!.text).toContain('Done.');
    expect(parts.at(-1)!.structured.nextCursor).toBeUndefined();
    expect(parts[0]!.structured.nextCursor).toMatch(/^ans\./);
  });

  it('answers in one part when everything fits, with no cursor', () => {
    const [part] = allParts(answerOf(['a little text']), 6000);
    expect(part!.next).toBeNull();
    expect(part!.text).toContain('a little text');
    expect(part!.structured).toEqual({ requestId: 'r1', results: [{ id: 'd0', url: 'https://example.com/0' }] });
  });

  it('makes progress even when one block is far larger than the budget', () => {
    const parts = allParts(answerOf(['x'.repeat(50_000)]), 500);
    expect(rejoin(parts.map((p) => p.text))).toEqual(['x'.repeat(50_000)]);
  });

  it('gives a record no entries list', () => {
    const [part] = allParts({ head: 'Monitor mon_1', blocks: [], structured: { id: 'mon_1' } }, 500);
    expect(part!.structured).toEqual({ id: 'mon_1' });
  });

  it('leaves Trawl’s own blocks unfenced and pages them too', () => {
    const answer: Answer = { head: 'Monitors:', blocks: Array.from({ length: 300 }, (_, i) => ({ label: `mon_${i} active`, entry: { id: `mon_${i}` } })), structured: { hasMore: false }, entriesKey: 'data' }; // prettier-ignore
    const parts = allParts(answer, 600);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => !p.text.includes('<untrusted-'))).toBe(true);
    expect(parts.flatMap((p) => (p.structured.data as { id: string }[]).map((d) => d.id))).toHaveLength(300);
  });
});

describe('cutAt', () => {
  it('cuts at a paragraph, line, sentence or word boundary within the room', () => {
    const text = page(40);
    const cut = cutAt(text, 300, countTokens);
    expect(countTokens(text.slice(0, cut))).toBeLessThanOrEqual(300);
    expect(text.slice(0, cut)).toMatch(/(\n\n|\. | )$/);
    expect(cut).toBeGreaterThan(600); // not a timid cut: most of the room is used
  });
});
