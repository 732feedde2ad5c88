/**
 * Sentence splitting for highlights and summaries: punctuation followed by space and a sentence start,
 * except after abbreviations and initials; decimals and URLs never split (no space after their dots);
 * list items, table rows and code lines stay whole, one unit per line.
 */

// Lower-case, without the final period. Titles, Latin abbreviations, months, units and corporate suffixes.
const ABBREVIATIONS = new Set(
  `mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al approx ca inc ltd co corp dept est fig figs no nos
  vol vols pp p ed eds rev gen col lt sgt capt gov sen rep jan feb mar apr jun jul aug sep sept oct nov dec
  mon tue wed thu fri sat sun u.s u.k a.m p.m ph.d b.sc m.sc op ch sec eq ref resp min max avg`
    .split(/\s+/)
    .filter(Boolean),
);

// Sentence-final punctuation, optional closing quotes/brackets, then whitespace and what may start a
// sentence (not a lower-case letter: "e.g. this" and "... and then" continue the sentence).
const BOUNDARY = /([.!?…]+)(["'”’)\]]*)\s+(?=["'“‘([]?[\p{Lu}\p{N}\p{Lo}])/gu;
// CJK full stops end a sentence whether or not a space follows.
const CJK_BOUNDARY = /([。！？]+)\s*/u;

function endsWithAbbreviation(before: string): boolean {
  const word = /([\p{L}.]+)$/u.exec(before)?.[1] ?? '';
  if (word.length === 0) return false;
  // Initials: "J. R. R. Tolkien".
  if (/^\p{Lu}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase().replace(/^\.+/, ''));
}

/** Splits one line of prose into sentences. */
function splitProse(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of line.matchAll(BOUNDARY)) {
    const punctEnd = match.index + match[1]!.length + match[2]!.length;
    if (match[1] === '.' && endsWithAbbreviation(line.slice(start, match.index))) continue;
    out.push(line.slice(start, punctEnd).trim());
    start = match.index + match[0].length;
  }
  out.push(line.slice(start).trim());
  return out.flatMap((s) => s.split(CJK_BOUNDARY).reduce(joinCjk, [] as string[])).filter((s) => s.length > 0);
}

// `split` with a capture group yields [text, punct, text, punct, ...]: glue each punct to its sentence.
function joinCjk(acc: string[], part: string, i: number): string[] {
  if (i % 2 === 1) acc[acc.length - 1] += part;
  else acc.push(part.trim());
  return acc;
}

/** True for lines that are units of their own: code, list items, table rows, headings-like short lines. */
export function isStructuredLine(line: string): boolean {
  return (
    /^\s*(?:[-*+•◦▪‣]|\d{1,3}[.)])\s+/.test(line) || // list item
    /^\s*\|.*\|\s*$/.test(line) || // table row
    /^(?: {4}|\t)/.test(line) || // indented code
    /[;{}]\s*$|^\s*[}\])]|=>|^\s*(?:import|export|const|let|var|def|return|function|class|#include)\b/.test(line) ||
    /^\s*[$>#]\s/.test(line) // shell prompt or quoted output
  );
}

/**
 * Splits text into sentences in order. Paragraphs (separated by blank lines) of prose have their wrapped
 * lines joined before splitting; structured lines (code, list items, table rows) are kept whole.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    let prose: string[] = [];
    const flush = () => {
      if (prose.length > 0) out.push(...splitProse(prose.join(' ').replace(/\s+/g, ' ')));
      prose = [];
    };
    for (const line of paragraph.split('\n')) {
      if (line.trim().length === 0) continue;
      if (isStructuredLine(line)) {
        flush();
        out.push(line.trimEnd().replace(/^\s*(?:[-*+•◦▪‣])\s+/, ''));
      } else {
        prose.push(line.trim());
      }
    }
    flush();
  }
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}
