/**
 * A one-pass lexer for brace languages: per line, the bracket depth at its start, whether it starts in
 * code, and its code with comments removed and string contents neutralised; every `{`, `}` and `;` with
 * its depth and the matching close of each `{`. Strings, template literals, regex literals, char
 * literals, raw strings, preprocessor lines and comments are skipped as far as a lexer can tell them
 * apart without a grammar (see README.md).
 */
import {
  BRACE,
  BRACKET,
  CODE,
  COMMENT,
  type Dialect,
  INTERPOLATION,
  type Line,
  openBacktick,
  openDoubleQuote,
  openSingleQuote,
  PAREN,
  regexLiteral,
  skipComment,
  skipString,
  type State,
  STRING,
  TEMPLATE,
} from './brace-literals.js';

export type { Dialect } from './brace-literals.js';

/** Event types: a `{`, a `}`, a `;`. */
export const EVENT_OPEN = 1;
export const EVENT_CLOSE = 2;
export const EVENT_SEMI = 3;

/** The lexer's output; events are parallel arrays indexed by event number. */
export interface BraceScan {
  /** Bracket depth (`(`, `[`, `{` together) at the start of each line; one extra entry for the end. */
  depth: Int32Array;
  /** 1 when the line starts in code rather than inside a string or comment. */
  inCode: Uint8Array;
  /** 1 when the line has code (strings count), 0 for blank and comment-only lines. */
  hasCode: Uint8Array;
  /** The line's code: comments removed, string contents reduced to words, all quotes as `"`. */
  masked: string[];
  evType: number[];
  evLine: number[];
  evCol: number[];
  /** Depth outside the brace for `{` and `}`, the current depth for `;`. */
  evLevel: number[];
  /** For a `{`, the event number of its `}`; -1 when unmatched. */
  evMatch: number[];
  /** First event number on or after each line; one extra entry. */
  lineEvent: Int32Array;
}

const SPECIAL = new Uint8Array(128);
for (const ch of '/"\'`{}()[];#') SPECIAL[ch.charCodeAt(0)] = 1;
const CLOSERS: Record<string, number> = { ')': PAREN, ']': BRACKET, '}': BRACE };
const MAX_REWINDS = 4;
const WORD_CHAR = /\w/;

/** Lexes `lines` in `dialect`. Never throws on unbalanced or unterminated input. */
export function scanBraces(lines: string[], dialect: Dialect): BraceScan {
  const n = lines.length;
  const scan: BraceScan = {
    depth: new Int32Array(n + 1),
    inCode: new Uint8Array(n),
    hasCode: new Uint8Array(n),
    masked: new Array<string>(n),
    evType: [],
    evLine: [],
    evCol: [],
    evLevel: [],
    evMatch: [],
    lineEvent: new Int32Array(n + 1),
  };
  const st: State = {
    mode: CODE,
    close: '',
    escapes: true,
    multiline: false,
    preprocessorContinues: false,
    stack: [],
    opens: [],
    last: '',
  };
  for (let no = 0; no < n; no++) {
    scan.depth[no] = st.stack.length;
    scan.inCode[no] = st.mode === CODE && !st.preprocessorContinues ? 1 : 0;
    scan.lineEvent[no] = scan.evType.length;
    const line: Line = { text: lines[no]!, no, parts: [], code: false };
    lexLine(line, st, dialect, scan);
    const masked = line.parts.join('');
    scan.masked[no] = masked;
    scan.hasCode[no] = line.code ? 1 : 0;
    for (let k = masked.length - 1; k >= 0; k--) {
      if (masked.charCodeAt(k) > 32) {
        st.last = masked[k]!;
        break;
      }
    }
    // A quote left open at the line end was not a string (JSX text, a stray apostrophe), unless a
    // backslash continues it on the next line.
    if (st.mode === STRING && !st.multiline && !line.text.endsWith('\\')) st.mode = CODE;
  }
  scan.depth[n] = st.stack.length;
  scan.lineEvent[n] = scan.evType.length;
  return scan;
}

function lexLine(line: Line, st: State, d: Dialect, scan: BraceScan): void {
  const text = line.text;
  if (d.preprocessor && (st.preprocessorContinues || (st.mode === CODE && text.trimStart().startsWith('#')))) {
    st.preprocessorContinues = text.trimEnd().endsWith('\\');
    line.code = true;
    return;
  }
  let from = 0;
  for (let rewinds = 0; ; rewinds++) {
    lexFrom(line, from, st, d, scan);
    // A one-line string left open at the line end was no string (JSX text: `<p>Don't {x}</p>`): the
    // rest of the line after its quote is code after all. A few times per line at most.
    const open = line.openQuote;
    if (st.mode !== STRING || st.multiline || text.endsWith('\\') || !open || rewinds >= MAX_REWINDS) return;
    line.parts.length = open.parts;
    line.parts.push(text[open.at]!);
    line.openQuote = undefined;
    st.mode = CODE;
    from = open.at + 1;
  }
}

function lexFrom(line: Line, from: number, st: State, d: Dialect, scan: BraceScan): void {
  const text = line.text;
  let i = from;
  let run = from;
  while (i < text.length) {
    if (st.mode === COMMENT) {
      i = skipComment(text, i, st);
      line.parts.push(' ');
      run = i;
      continue;
    }
    if (st.mode !== CODE) {
      line.code = true;
      i = skipString(line, i, st);
      run = i;
      continue;
    }
    const c = text.charCodeAt(i);
    if (c >= 128 || SPECIAL[c] === 0) {
      if (c > 32) line.code = true;
      i++;
      continue;
    }
    if (i > run) line.parts.push(text.slice(run, i));
    i = lexSpecial(line, i, st, d, scan);
    run = i;
  }
  if (st.mode === CODE && i > run) line.parts.push(text.slice(run, i));
}

/** Handles the special character at `i`; returns where lexing goes on. */
function lexSpecial(line: Line, i: number, st: State, d: Dialect, scan: BraceScan): number {
  const text = line.text;
  const ch = text[i]!;
  const after = text[i + 1];
  if (ch === '/' && after === '/') return text.length;
  if (ch === '/' && after === '*') {
    st.mode = COMMENT;
    return i + 2;
  }
  if (ch === '#' && d.hashComments && after !== '[') return text.length;
  line.code = true;
  // In JS and PHP no string starts right after a letter: `Don't` and `It's` in JSX text are apostrophes.
  if ((ch === "'" || ch === '"') && d.singleQuoteStrings && WORD_CHAR.test(text[i - 1] ?? '')) {
    line.parts.push(ch);
    return i + 1;
  }
  if (ch === '"' || ch === "'" || ch === '`') {
    const parts = line.parts.length;
    const next =
      ch === '"'
        ? openDoubleQuote(line, i, st, d)
        : ch === "'"
          ? openSingleQuote(line, i, st, d)
          : openBacktick(line, i, st, d);
    if (st.mode === STRING && !st.multiline) line.openQuote = { at: i, parts };
    return next;
  }
  if (ch === '/' && d.regexLiterals) return regexLiteral(line, i, st);
  if (ch === ';') pushEvent(scan, EVENT_SEMI, line.no, i, st.stack.length);
  else if (ch === '(' || ch === '[' || ch === '{') openBracket(scan, st, ch, line.no, i);
  else if (ch in CLOSERS) return closeBracket(scan, st, ch, line, i);
  line.parts.push(ch);
  return i + 1;
}

function pushEvent(scan: BraceScan, type: number, line: number, col: number, level: number): number {
  scan.evType.push(type);
  scan.evLine.push(line);
  scan.evCol.push(col);
  scan.evLevel.push(level);
  scan.evMatch.push(-1);
  return scan.evType.length - 1;
}

function openBracket(scan: BraceScan, st: State, ch: string, no: number, col: number): void {
  const kind = ch === '(' ? PAREN : ch === '[' ? BRACKET : BRACE;
  st.opens.push(kind === BRACE ? pushEvent(scan, EVENT_OPEN, no, col, st.stack.length) : -1);
  st.stack.push(kind);
}

function closeBracket(scan: BraceScan, st: State, ch: string, line: Line, i: number): number {
  const kind = CLOSERS[ch]!;
  if (kind === BRACE && st.stack[st.stack.length - 1] === INTERPOLATION) {
    st.stack.pop();
    st.opens.pop();
    // Back in the template literal (a string inside the interpolation changed the terminator).
    Object.assign(st, { mode: TEMPLATE, close: '`', escapes: true, multiline: true });
    line.parts.push('"');
    return i + 1;
  }
  // A stray closer is ignored; one that skips up to two open brackets of another kind closes them too.
  let at = st.stack.length - 1;
  while (at >= 0 && at >= st.stack.length - 3 && st.stack[at] !== kind) at--;
  if (at >= 0 && st.stack[at] === kind) {
    while (st.stack.length > at + 1) {
      st.stack.pop();
      st.opens.pop();
    }
    st.stack.pop();
    const open = st.opens.pop()!;
    if (kind === BRACE) {
      const close = pushEvent(scan, EVENT_CLOSE, line.no, i, st.stack.length);
      if (open >= 0) scan.evMatch[open] = close;
    }
  }
  line.parts.push(ch);
  return i + 1;
}
