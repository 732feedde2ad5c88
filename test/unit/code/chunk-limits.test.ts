import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chunkFile, type CodeChunk } from '../../../src/core/code/chunk/chunk.js';

// Size bounds, fallback windows, garbage input and speed of chunk.ts; the per-language rules are in
// chunk.test.ts.
const read = (path: string): string => readFileSync(new URL(`../../fixtures/code-repo/${path}`, import.meta.url), 'utf8'); // prettier-ignore
const find = (chunks: CodeChunk[], symbol: string): CodeChunk | undefined => chunks.find((c) => c.symbol === symbol);
const outline = (chunks: CodeChunk[]): string[] =>
  chunks.map((c) => `${c.startLine}-${c.endLine} ${c.kind} ${c.symbol ?? '-'}`);

/** Ranges inside the file, in order, never overlapping (except windows), code equal to the lines. */
function expectWellFormed(chunks: CodeChunk[], text: string): void {
  const lines = text.split(/\r\n|\n|\r/);
  let previousEnd = 0;
  for (const c of chunks) {
    expect(c.endLine).toBeGreaterThanOrEqual(c.startLine);
    expect(c.startLine).toBeGreaterThanOrEqual(1);
    expect(c.endLine).toBeLessThanOrEqual(lines.length);
    expect(c.code).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
    if (!(c.kind === 'block' && c.symbol === null)) expect(c.startLine).toBeGreaterThan(previousEnd);
    previousEnd = c.endLine;
  }
}

describe('size bounds and fallbacks', () => {
  it('cuts a long function into parts that keep the symbol and signature; the doc stays with the first', () => {
    const body = Array.from({ length: 400 }, (_, i) => (i % 20 === 19 ? '' : `    total += ${i}`));
    const text = ['def big(total):', '    """Adds things up."""', ...body, '    return total', '', 'def small():', '    return 1'].join('\n'); // prettier-ignore
    const chunks = chunkFile('big.py', text);
    expectWellFormed(chunks, text);
    const parts = chunks.filter((c) => c.symbol === 'big');
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts[0]!.startLine).toBe(1);
    expect(parts[parts.length - 1]!.endLine).toBe(403);
    for (const part of parts) {
      expect(part.endLine - part.startLine + 1).toBeLessThanOrEqual(150);
      expect(part.signature).toBe('def big(total)');
    }
    expect(parts.map((p) => p.doc)).toEqual(['Adds things up.', ...parts.slice(1).map(() => null)]);
    // Cut at blank lines, so no part starts with one.
    for (const part of parts.slice(1)) expect(part.code.split('\n')[0]!.trim()).not.toBe('');
    expect(find(chunks, 'small')?.startLine).toBe(405);
  });

  it('splits long brace functions the same way', () => {
    const text = ['export function huge(): number {', '  let n = 0;', ...Array.from({ length: 320 }, (_, i) => `  n += ${i};`), '  return n;', '}'].join('\n'); // prettier-ignore
    const chunks = chunkFile('huge.ts', text);
    expectWellFormed(chunks, text);
    expect(chunks.every((c) => c.symbol === 'huge' && c.kind === 'function')).toBe(true);
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 100],
      [101, 200],
      [201, 324],
    ]);
  });

  it('falls back to overlapping windows cut at blank lines for text and unrecognised code', () => {
    const paragraphs = Array.from({ length: 30 }, (_, p) => Array.from({ length: 6 }, (_, i) => `line ${p}.${i}`).join('\n')); // prettier-ignore
    const text = paragraphs.join('\n\n');
    const chunks = chunkFile('notes.txt', text);
    const lines = text.split('\n');
    expect(chunks.every((c) => c.kind === 'block' && c.symbol === null && c.language === 'text')).toBe(true);
    expect(chunks[0]!.startLine).toBe(1);
    expect(chunks[chunks.length - 1]!.endLine).toBe(lines.length);
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      expect(c.endLine - c.startLine + 1).toBeLessThanOrEqual(75);
      expect(c.code).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
      if (i + 1 < chunks.length) {
        expect(lines[c.endLine]).toBe(''); // the window ends before a blank line
        expect(chunks[i + 1]!.startLine).toBeLessThanOrEqual(c.endLine); // and the next one overlaps it
      }
    }
    // A script with no declaration the chunker knows is windowed too.
    const iife = ['(function () {', ...Array.from({ length: 100 }, (_, i) => `  run(${i});`), '})();'].join('\n');
    expect(chunkFile('legacy.js', iife).map((c) => c.kind)).toEqual(['block', 'block']);
  });

  it('never throws on garbage, unbalanced input or giant lines', () => {
    const garbage = [
      '',
      '\n\n\n',
      '}}}}{{{{ ))(( ]][[',
      'function broken() {\n  if (x) {\n    return "unterminated\n',
      'class A:\n  def f(self):\n\treturn """never closed',
      '\u0000\u0001\u0002binary\u0000'.repeat(1000),
      'x'.repeat(1_000_000),
      '{'.repeat(50_000),
      '`${'.repeat(5_000),
      '/*'.repeat(1_000) + '\n*/'.repeat(10),
      Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i % 40)}class C${i}:`).join('\n'),
    ];
    for (const text of garbage) {
      for (const language of [
        'typescript',
        'python',
        'go',
        'rust',
        'c',
        'ruby',
        'shell',
        'sql',
        'markdown',
        'json',
        'yaml',
      ]) {
        const chunks = chunkFile('garbage', text, language);
        expect(Array.isArray(chunks)).toBe(true);
        if (text.length < 100_000) expectWellFormed(chunks, text);
      }
    }
  });

  it('keeps the structure of a file with one giant line, and windows a minified one', () => {
    const functions = Array.from({ length: 40 }, (_, i) => `export function f${i}(): number {\n  return DATA.length + ${i};\n}\n`); // prettier-ignore
    const text = [`export const DATA = '${'x'.repeat(20_000)}';\n`, ...functions].join('\n');
    const chunks = chunkFile('data.ts', text);
    expect(outline(chunks).slice(0, 3)).toEqual(['1-1 module -', '3-5 function f0', '7-9 function f1']);
    expect(chunks).toHaveLength(41);
    const minified = Array.from({ length: 5 }, () => 'function a(){return 1}'.repeat(50)).join('\n');
    expect(chunkFile('app.min.js', minified).every((c) => c.kind === 'block' && c.symbol === null)).toBe(true);
  });

  // how fast: bench/test-timings.mjs
  it('chunks a 10,000-line file', () => {
    const one = read('ts/pool.ts');
    const text = Array.from({ length: 115 }, () => one).join('\n');
    expect(text.split('\n').length).toBeGreaterThanOrEqual(10_000);
    expect(chunkFile('big.ts', text).length).toBeGreaterThan(1_000);
  });
});
