import { describe, expect, it } from 'vitest';
import { splitIdentifier, stem, terms, tokenize } from '../../../src/core/text/tokenize.js';
import { isStopword } from '../../../src/core/text/stopwords.js';

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
