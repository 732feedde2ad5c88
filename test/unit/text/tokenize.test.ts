import { describe, expect, it } from 'vitest';
import {
  nextCompound,
  nextWordStart,
  splitIdentifier,
  stem,
  terms,
  tokenize,
  wordEnd,
} from '../../../src/core/text/tokenize.js';
import { isStopword } from '../../../src/core/text/stopwords.js';

/** 5,000 texts of 1 to `maxParts` pieces of `alphabet`, from a seeded generator (the same every run). */
function* randomTexts(alphabet: string[], maxParts: number, seed: number): Generator<string> {
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let k = 0; k < 5000; k++) {
    let text = '';
    for (let n = 1 + Math.floor(random() * maxParts); n > 0; n--)
      text += alphabet[Math.floor(random() * alphabet.length)];
    yield text;
  }
}

describe('tokenize', () => {
  it('lower-cases words and drops stopwords', () => {
    expect(tokenize('The Quick brown fox is over THE lazy dog')).toEqual(['quick', 'brown', 'fox', 'lazy', 'dog']);
  });

  it('keeps identifiers whole and adds their parts', () => {
    expect(tokenize('call parseJsonBody twice')).toEqual(['call', 'parsejsonbody', 'parse', 'json', 'body', 'twice']);
    expect(tokenize('snake_case_var')).toEqual(['snake_case_var', 'snake', 'case', 'var']);
    expect(tokenize('XMLHttpRequest')).toEqual(['xmlhttprequest', 'xml', 'http', 'request']);
  });

  it('splits identifiers at case changes and underscores', () => {
    expect(splitIdentifier('getHTTPResponse')).toEqual(['get', 'HTTP', 'Response']);
    expect(splitIdentifier('__dunder__name')).toEqual(['dunder', 'name']);
    expect(splitIdentifier('plain')).toEqual(['plain']);
  });

  it('reads Unicode words, contractions and possessives', () => {
    expect(tokenize("Café naïve O'Neill's don't Zürich")).toEqual(['café', 'naïve', 'oneill', 'zürich']);
  });

  it('turns CJK runs into character bigrams', () => {
    expect(tokenize('東京都')).toEqual(['東京', '京都']);
    expect(tokenize('猫')).toEqual(['猫']);
  });

  it('drops single letters and very long runs but keeps digits', () => {
    expect(tokenize(`x y Python 3 ${'a'.repeat(50)}`)).toEqual(['python', '3']);
  });
});

describe('stemming', () => {
  it('Porter-stems plain words and leaves others alone', () => {
    expect(stem('running')).toBe('run');
    expect(stem('configuration')).toBe(stem('configured'));
    expect(stem('東京')).toBe('東京');
    expect(stem('v8')).toBe('v8');
  });

  it('terms() is tokenize then stem', () => {
    expect(terms('Running the configured servers')).toEqual(['run', 'configur', 'server']);
  });

  it('knows its stopwords', () => {
    expect(isStopword('the')).toBe(true);
    expect(isStopword("doesn't")).toBe(true);
    expect(isStopword('server')).toBe(false);
  });
});

describe('nextWordStart / wordEnd', () => {
  const WORD = /[\p{L}\p{M}\p{N}_]+(?:['’][\p{L}\p{M}]+)*/gu;
  const words = (text: string) => {
    const out: [number, number][] = [];
    for (let start = nextWordStart(text, 0), end = 0; start >= 0; start = nextWordStart(text, end)) {
      end = wordEnd(text, start);
      out.push([start, end]);
    }
    return out;
  };

  it("finds exactly the word pattern's matches: marks, apostrophes, astral letters, lone surrogates", () => {
    const alphabet = [
      'a',
      'Z',
      '7',
      '_',
      'é',
      'e\u0301',
      '\u0301',
      "'",
      '’',
      ' ',
      '-',
      '𝐀',
      '😀',
      '中',
      '٣',
      '\ud800',
      '\udc00',
      '.',
    ];
    for (const text of randomTexts(alphabet, 12, 7)) {
      const expected = [...text.matchAll(WORD)].map((m): [number, number] => [m.index, m.index + m[0].length]);
      expect(words(text), JSON.stringify(text)).toEqual(expected);
    }
    expect(words("o'neill2 don’t 'x 𝐀b’c")).toEqual([[0, 7], [7, 8], [9, 14], [16, 17], [18, 23]]); // prettier-ignore
  });
});

describe('nextCompound', () => {
  it("finds exactly the compound pattern's global matches, from the separators", () => {
    const COMPOUND = /[\p{L}\p{N}]+(?:[-/][\p{L}\p{N}]+)+/gu;
    const alphabet = [
      'a',
      'Z',
      '7',
      '_',
      'é',
      'e\u0301',
      '-',
      '/',
      '--',
      ' ',
      '𝐀',
      '😀',
      '中',
      '٣',
      '\ud800',
      '\udc00',
    ];
    for (const text of randomTexts(alphabet, 14, 11)) {
      const found: [number, string][] = [];
      for (let m = nextCompound(text, 0); m; m = nextCompound(text, m.index + m[0].length)) found.push([m.index, m[0]]);
      expect(found, JSON.stringify(text)).toEqual([...text.matchAll(COMPOUND)].map((m) => [m.index, m[0]]));
    }
  });
});
