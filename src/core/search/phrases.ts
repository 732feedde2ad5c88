/**
 * Exact phrases for `includeText` / `excludeText`: a document holds a phrase when the phrase's words
 * stand in its title or text one after another, case and accents ignored, anything but letters and
 * digits between them (how SQLite FTS5's unicode61 tokenizer reads words). The index keeps no copy of
 * the words: a document is first checked against the phrase's stemmed terms in the postings (a
 * document lacking one cannot hold the phrase), then its stored text is read and matched. Documents are
 * checked when the ranking asks about them, not up front, so a common phrase costs what a query
 * reads, not what the index holds.
 */
import { analyze, fold } from './analyzer.js';
import { HEAD_WORDS, stripLinkTargets } from './index-entry.js';
import { locate, type PostingsReader } from './ranking/scored-postings.js';
import type { SourceText } from '../../store/search-index/search-index.repo.js';

/** Whether an index document holds a phrase (a `Set` of ids is one too). */
export interface PhraseMatcher {
  has(id: number): boolean;
}

export interface PhraseSource {
  read: PostingsReader;
  texts(ids: number[]): Map<number, SourceText>;
}

const WORDS = /[\p{L}\p{N}]+/gu;

/** The text up to the end of its `HEAD_WORDS`-th word (the part `excludeText` looks at). */
export function headOf(text: string): string {
  const re = /\S+/g;
  let count = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) && ++count < HEAD_WORDS);
  return m ? text.slice(0, m.index + m[0].length) : text;
}

/** A matcher of `phrase` over the title and the whole text (`all`) or its first 1000 words (`head`). */
export function createPhraseMatcher(phrase: string, scope: 'all' | 'head', source: PhraseSource): PhraseMatcher {
  const words = fold(phrase).match(WORDS);
  if (!words) return { has: () => false };
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${words.join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'u');
  const lists = [...new Set(analyze(phrase).postings.map((p) => p.term))].map((term) => source.read(term));
  const answers = new Map<number, boolean>();
  const holds = (id: number): boolean => {
    for (const list of lists) if (!locate(list, id)) return false;
    const doc = source.texts([id]).get(id);
    if (!doc) return false;
    const body = stripLinkTargets(doc.text);
    return pattern.test(fold(doc.title)) || pattern.test(fold(scope === 'head' ? headOf(body) : body));
  };
  return {
    has(id) {
      let answer = answers.get(id);
      if (answer === undefined) answers.set(id, (answer = holds(id)));
      return answer;
    },
  };
}
