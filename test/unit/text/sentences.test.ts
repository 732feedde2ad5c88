import { describe, expect, it } from 'vitest';
import { isStructuredLine, splitSentences } from '../../../src/core/text/sentences.js';

describe('splitSentences', () => {
  it('splits at sentence punctuation followed by a capital', () => {
    expect(splitSentences('First one. Second one! Third? Fourth.')).toEqual([
      'First one.',
      'Second one!',
      'Third?',
      'Fourth.',
    ]);
  });

  it('does not split after abbreviations, initials, decimals or inside URLs', () => {
    const text =
      'Dr. Smith paid $3.50 in Jan. 2024 for it. J. R. R. Tolkien wrote e.g. this. Visit https://example.com/a.b?c=1 today. The U.S. grew 2.5% last year.';
    expect(splitSentences(text)).toEqual([
      'Dr. Smith paid $3.50 in Jan. 2024 for it.',
      'J. R. R. Tolkien wrote e.g. this.',
      'Visit https://example.com/a.b?c=1 today.',
      'The U.S. grew 2.5% last year.',
    ]);
  });

  it('keeps an ellipsis followed by lower case in one sentence', () => {
    expect(splitSentences('Wait... and then it worked. Done.')).toEqual(['Wait... and then it worked.', 'Done.']);
  });

  it('joins wrapped prose lines but keeps code and list lines whole', () => {
    const text =
      'This paragraph is\nwrapped over lines. It ends here.\n- item one. still item one\n- item two\nconst x = 1;\n\nNext paragraph.';
    expect(splitSentences(text)).toEqual([
      'This paragraph is wrapped over lines.',
      'It ends here.',
      'item one. still item one',
      'item two',
      'const x = 1;',
      'Next paragraph.',
    ]);
  });

  it('splits CJK text at full-width stops', () => {
    expect(splitSentences('東京は晴れです。大阪は雨です。')).toEqual(['東京は晴れです。', '大阪は雨です。']);
  });

  it('recognises structured lines', () => {
    expect(isStructuredLine('- item')).toBe(true);
    expect(isStructuredLine('12) item')).toBe(true);
    expect(isStructuredLine('| a | b |')).toBe(true);
    expect(isStructuredLine('    indented();')).toBe(true);
    expect(isStructuredLine('return value;')).toBe(true);
    expect(isStructuredLine('An ordinary sentence of prose.')).toBe(false);
  });
});
