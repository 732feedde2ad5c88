// The search analyzer: the same terms for documents and queries, positions kept for proximity, and no
// input that can make it throw.
import { describe, expect, it } from 'vitest';
import { analyze, analyzePacked, analyzeQuery, fold } from '../../../src/core/search/analyzer.js';

const termsOf = (text: string) => analyze(text).postings.map((p) => p.term);

describe('analyze', () => {
  it('stems, lower-cases and drops stopwords while keeping their positions', () => {
    const a = analyze('The Running of the Bulls');
    expect(a.postings).toEqual([
      { term: 'run', pos: 1 },
      { term: 'bull', pos: 4 },
    ]);
    expect(a.positions).toBe(5);
    expect(a.length).toBe(2);
  });

  it('folds diacritics so café matches cafe', () => {
    expect(fold('Café Crème')).toBe('cafe creme');
    expect(termsOf('café')).toEqual(termsOf('cafe'));
  });

  it('indexes hyphen and slash compounds whole as well as in parts', () => {
    expect(termsOf('IL-6 levels')).toEqual(['il', 'il6', '6', 'level']);
    expect(termsOf('TCP/IP stack')).toContain('tcpip');
  });

  it('gives gene and model names their letter stem too', () => {
    expect(termsOf('FOXO3a')).toEqual(['foxo3a', 'foxo']);
    expect(termsOf('gpt4')).toEqual(['gpt4', 'gpt']);
  });

  it('splits identifiers into their parts at the same position', () => {
    const a = analyze('call parseJsonBody now');
    const at1 = a.postings.filter((p) => p.pos === 1).map((p) => p.term);
    expect(at1).toEqual(['parsejsonbodi', 'pars', 'json', 'bodi']);
  });

  it('reads CJK text as overlapping bigrams', () => {
    expect(termsOf('東京都')).toEqual(['東京', '京都']);
  });

  it('drops overlong runs (hashes, base64)', () => {
    expect(termsOf(`sha ${'a'.repeat(64)}`)).toEqual(['sha']);
  });

  it("puts a compound after its first word's terms, wherever the compound starts in that word", () => {
    expect(analyze('the IL-6/TNF ratio').postings).toEqual([
      { term: 'il', pos: 1 },
      { term: 'il6tnf', pos: 1 },
      { term: '6', pos: 2 },
      { term: 'tnf', pos: 3 },
      { term: 'ratio', pos: 4 },
    ]);
    // "y-z" starts inside the word x_y; 𝐀𝐁 is two letters of four UTF-16 units
    expect(analyze('𝐀𝐁-cd and x_y-z').postings).toEqual([
      { term: 'ab', pos: 0 },
      { term: 'abcd', pos: 0 },
      { term: 'cd', pos: 1 },
      { term: 'x_y', pos: 3 },
      { term: 'yz', pos: 3 },
    ]);
    expect(analyze('a-b --foo-bar-- 1/2').postings.map((p) => p.term)).toEqual([
      'ab',
      'foo',
      'foobar',
      'bar',
      '1',
      '12',
      '2',
    ]);
  });

  it('reads CJK wherever it stands: every Han, Hiragana and Katakana code point is at U+2E80 or above', () => {
    const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
    const below: number[] = [];
    for (let c = 0; c < 0x2e80; c++) if (cjk.test(String.fromCharCode(c))) below.push(c);
    expect(below).toEqual([]);
    expect(termsOf('naïve 部首 𠀀𠀁 ｶﾀ')).toEqual(['naiv', '部首', '𠀀𠀁', 'ｶﾀ']);
  });

  it('gives the indexer the same terms as parallel arrays', () => {
    for (const text of ['The Running of the Bulls', 'IL-6 and TCP/IP', 'parseJsonBody 中文字 l’état', '']) {
      const packed = analyzePacked(text);
      const { postings, positions, length } = analyze(text);
      expect(packed.terms.map((t) => t.term)).toEqual(postings.map((p) => p.term));
      expect(packed.pos).toEqual(postings.map((p) => p.pos));
      expect([packed.positions, packed.length]).toEqual([positions, length]);
    }
    // one object per term, whichever word, compound or field it came from
    const [a, b] = [analyzePacked('running IL-6'), analyzePacked('runs il6')];
    expect(a.terms[0]).toBe(b.terms[0]);
    expect(a.terms[2]).toBe(b.terms[1]);
    expect(a.terms.map((t) => t.term)).toEqual(['run', 'il', 'il6', '6']);
  });
});

describe('analyzeQuery', () => {
  it('counts repeated terms and keeps the word sequence for proximity pairs', () => {
    const q = analyzeQuery('vitamin D and vitamin C deficiency');
    expect(q.terms.get('vitamin')).toBe(2);
    expect(q.sequence).toEqual(['vitamin', 'vitamin', 'defici']);
  });

  it('treats query syntax as plain words: quotes, operators and punctuation cannot break it', () => {
    for (const raw of [
      '"unterminated',
      'a AND (b OR',
      'NEAR(x y)',
      '*',
      '-- DROP TABLE documents;',
      '\u0000\uffff',
      '',
    ]) {
      expect(() => analyzeQuery(raw)).not.toThrow();
    }
    expect([...analyzeQuery('title:"undici" OR pool*').terms.keys()]).toEqual(['titl', 'undici', 'pool']);
  });
});
