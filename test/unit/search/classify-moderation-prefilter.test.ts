// The moderation prefilter is sound: every title, URL or text that a lexicon group's pattern scores on
// passes it, whatever the case, separators and surroundings; ordinary text does not.
import { describe, expect, it } from 'vitest';
import { createLexiconPrefilter } from '../../../src/core/search/classify/lexicon-prefilter.js';
import { LEXICON } from '../../../src/core/search/classify/moderation-lexicon.js';
import { mayMatchLexicon, moderationScores } from '../../../src/core/search/classify/moderation.js';
import { signalsOf, type ClassifiableDocument } from '../../../src/core/search/classify/signals.js';

const TERMS = LEXICON.flatMap((g) => [...g.strong, ...g.weak]);

// a small seeded generator, so a failure names a reproducible string
let seed = 20261126;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

type Node = { alt: Node[][] } | { lit: string } | { sep: true } | { opt: Node };

/** The lexicon's term syntax (literals, `(?:…)`, `|`, `?`, a space for separators), read independently of the prefilter. */
function parse(source: string): Node[][] {
  let i = 0;
  const alternation = (): Node[][] => {
    const alts = [sequence()];
    while (source[i] === '|') {
      i++;
      alts.push(sequence());
    }
    return alts;
  };
  const sequence = (): Node[] => {
    const seq: Node[] = [];
    while (i < source.length && source[i] !== '|' && source[i] !== ')') {
      let node: Node;
      if (source.startsWith('(?:', i)) {
        i += 3;
        node = { alt: alternation() };
        i++; // ')'
      } else node = source[i++] === ' ' ? { sep: true } : { lit: source[i - 1]! };
      if (source[i] === '?') {
        i++;
        node = { opt: node };
      }
      seq.push(node);
    }
    return seq;
  };
  return alternation();
}

/** One string of the term's language: `choose` picks alternatives and optional parts, `sep` writes separators. */
function sample(alts: Node[][], choose: (n: number) => number, sep: () => string): string {
  const seq = alts[choose(alts.length)]!;
  return seq
    .map((node): string => {
      if ('lit' in node) return node.lit;
      if ('sep' in node) return sep();
      if ('opt' in node) return choose(2) === 1 ? sample([[node.opt]], choose, sep) : '';
      return sample(node.alt, choose, sep);
    })
    .join('');
}

const SEPARATORS = [' ', '-', '_', '  ', ' - ', '\t', '\n', '__', ' \u00a0'];
/** Mixed case, and the two non-ASCII letters that match ASCII ones case-insensitively (ſ → s, K → k). */
function mixCase(s: string): string {
  return [...s]
    .map((c) => {
      const r = random();
      if (c === 's' && r < 0.05) return 'ſ';
      if (c === 'k' && r < 0.1) return '\u212a';
      return r < 0.4 ? c.toUpperCase() : c;
    })
    .join('');
}

/** Strings of every term: the first and last alternatives throughout, optional parts on and off, and random picks. */
function termStrings(): string[] {
  const out: string[] = [];
  for (const term of TERMS) {
    const alts = parse(term);
    out.push(
      sample(
        alts,
        () => 0,
        () => ' ',
      ),
    );
    out.push(
      sample(
        alts,
        (n) => n - 1,
        () => ' ',
      ),
    );
    for (let k = 0; k < 40; k++)
      out.push(
        mixCase(
          sample(
            alts,
            (n) => Math.floor(random() * n),
            () => pick(SEPARATORS),
          ),
        ),
      );
  }
  return out;
}

const doc = (url: string, title: string, text: string): ClassifiableDocument => ({ url, title, text, metadata: {} });
const BEFORE = ['', ' ', 'Read about ', '(', '"', '—', '1.', '_', '-', '/', '\u00a0', 'é', 'x', '7', '中'];
const AFTER = ['', '.', ')', ' now', 's', 'é', '1', '-', '_'];

describe('moderation prefilter', () => {
  it('reads the whole lexicon (the word-start path is the one in use)', () => {
    expect(createLexiconPrefilter(TERMS, /x/y)).not.toBeNull();
    expect(createLexiconPrefilter(['\\d+ pills'], /x/y)).toBeNull();
    expect(createLexiconPrefilter(['(?:a|)?'], /x/y)).toBeNull();
  });

  it('passes every document a lexicon group scores on: terms in text, title and URL, any case and separators', () => {
    const missed: string[] = [];
    let scored = 0;
    let total = 0;
    for (const s of termStrings()) {
      const slug = s.replace(/\s+/g, pick(['-', '_', '+', '/', '.']));
      const docs = [
        doc('https://example.com/', 'Page', `${pick(BEFORE)}${s}${pick(AFTER)} and more words.`),
        doc('https://example.com/', `${pick(BEFORE)}${s}${pick(AFTER)}`, 'Ordinary text.'),
        doc(`https://example.com/${pick(['', 'a/', 'x-'])}${encodeURIComponent(slug)}${pick(['', '/', '.html', '?q=1'])}`, 'Page', 'Text.'), // prettier-ignore
        doc('https://example.com/', 'Page', `${'Ordinary words of a long page. '.repeat(20)}${s}`),
      ];
      for (const d of docs) {
        const signals = signalsOf(d);
        if (!moderationScores(signals).some((g) => g.score > 0)) continue;
        scored++;
        if (!mayMatchLexicon(signals)) missed.push(JSON.stringify([d.url, d.title, d.text.slice(-80)]));
      }
      total += docs.length;
    }
    expect(missed).toEqual([]);
    // not vacuous: most generated documents do score (the rest put a letter or digit against the term)
    expect(scored).toBeGreaterThan(total * 0.6);
  });

  it('stops ordinary text, terms inside other words included, and passes the terms', () => {
    const pass = (text: string) => mayMatchLexicon(signalsOf(doc('https://example.com/study', 'Results', text)));
    expect(pass('Methods: the disease promoted methylation in women under treatment; deaths were counted.')).toBe(false); // prettier-ignore
    expect(pass('Cell-free DNA, Essex and Sussex cohorts, the aporn and 3xxx series.')).toBe(false);
    expect(pass('Free PORN-videos here')).toBe(true);
    expect(pass('ſex videos')).toBe(true);
  });
});
