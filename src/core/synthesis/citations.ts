/**
 * Citation markers in a model's text answer: `[1]`, `[2, 3]`, `[1][4]` after the claims they support.
 * They are read into the grounding and taken out of the text the caller gets, whole or streamed.
 */

/** A marker: one or more source numbers in brackets, with the space before it. */
const MARKER = /\s?\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

/** The source numbers a text cites, in order of first citation, and the text without its markers. */
export function readCitations(text: string): { text: string; cited: number[] } {
  const cited: number[] = [];
  const clean = text.replace(MARKER, (_m, list: string) => {
    for (const n of list.split(',').map((s) => Number(s.trim()))) if (!cited.includes(n)) cited.push(n);
    return '';
  });
  return { text: clean, cited };
}

/**
 * Takes markers out of a text that arrives in pieces: a piece ending inside what may still become a
 * marker (`… [1`) is held back until the next piece settles it. `push` returns the text that can go
 * out now; `end` flushes the rest. `cited` collects the numbers seen.
 */
export function createMarkerFilter(): { push(piece: string): string; end(): string; readonly cited: number[] } {
  const cited: number[] = [];
  let held = '';
  const take = (text: string) => {
    const read = readCitations(text);
    for (const n of read.cited) if (!cited.includes(n)) cited.push(n);
    return read.text;
  };
  return {
    cited,
    push(piece) {
      const text = held + piece;
      // hold back a trailing "[", "[1", "[1, 2" (and the space before it), or a trailing space: it may
      // be a marker's start, or the space before one ("origin " then "[1].")
      const open = /(?:\s?\[[\d,\s]*|\s)$/.exec(text);
      held = open ? text.slice(open.index) : '';
      return take(open ? text.slice(0, open.index) : text);
    },
    end() {
      const rest = take(held);
      held = '';
      return rest;
    },
  };
}
