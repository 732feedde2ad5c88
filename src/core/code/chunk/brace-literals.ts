/**
 * The literals and comments of brace languages, for the lexer in brace-scan.ts: strings (escaped,
 * verbatim, raw, triple-quoted, multi-line), JS template literals with `${…}`, char literals told from
 * Rust lifetimes, JS regex literals told from divisions, block comments.
 */

/** What the lexer must know of a language's literals and comments. */
export interface Dialect {
  /** `'…'` is a string (JS, PHP), not a char literal or a lifetime. */
  singleQuoteStrings?: boolean;
  /** A backquote opens a JS template literal, a Go raw string, or a Kotlin/Scala quoted name ('name'). */
  backtick?: 'template' | 'raw' | 'name';
  /** `"""` text blocks (Java, Kotlin, Scala, Swift, C#). */
  tripleQuotes?: boolean;
  /** Plain `"…"` strings may span lines (Rust, PHP). */
  multilineStrings?: boolean;
  regexLiterals?: boolean;
  hashComments?: boolean;
  rawStrings?: 'rust' | 'cpp' | 'csharp';
  /** `#` lines (C preprocessor) hold no structure: their braces are not counted. */
  preprocessor?: boolean;
}

/** Lexer modes. */
export const CODE = 0;
export const COMMENT = 1;
export const STRING = 2;
export const TEMPLATE = 3;
/** Kinds of open bracket on the lexer's stack (`${` of a template literal included). */
export const PAREN = 0;
export const BRACKET = 1;
export const BRACE = 2;
export const INTERPOLATION = 3;

/** The lexer's state between characters and lines. */
export interface State {
  mode: number;
  close: string;
  escapes: boolean;
  multiline: boolean;
  preprocessorContinues: boolean;
  /** Open brackets, and the event number of each `{` (-1 for other brackets). */
  stack: number[];
  opens: number[];
  /** Last code character of the previous lines: tells a regex from a division at a line start. */
  last: string;
}

/** The line being lexed and its masked pieces. */
export interface Line {
  text: string;
  no: number;
  parts: string[];
  code: boolean;
  /** The last one-line string opened on this line: where its quote is, and the parts before it. */
  openQuote?: { at: number; parts: number };
}

const REGEX_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']); // prettier-ignore
const IDENT = /[\w$]/;

/** Skips block comment text from `i`; returns where code resumes (the line end if it does not). */
export function skipComment(text: string, i: number, st: State): number {
  for (let j = i; j < text.length - 1; j++) {
    if (text[j] === '*' && text[j + 1] === '/') {
      st.mode = CODE;
      return j + 2;
    }
  }
  return text.length;
}

/** Skips string or template content from `i`; the contents go to the masked line as words only. */
export function skipString(line: Line, i: number, st: State): number {
  const text = line.text;
  let j = i;
  while (j < text.length) {
    const ch = text[j]!;
    if (ch === '\\' && st.escapes) j += 2;
    else if (st.mode === TEMPLATE && ch === '$' && text[j + 1] === '{') {
      line.parts.push(words(text.slice(i, j)));
      st.stack.push(INTERPOLATION);
      st.opens.push(-1);
      st.mode = CODE;
      return j + 2;
    } else if (text.startsWith(st.close, j)) {
      // C# verbatim strings write a quote as "".
      if (!st.escapes && st.close === '"' && text[j + 1] === '"') j += 2;
      else {
        line.parts.push(words(text.slice(i, j)), '"');
        st.mode = CODE;
        return j + st.close.length;
      }
    } else j++;
  }
  line.parts.push(words(text.slice(i)));
  return text.length;
}

function words(content: string): string {
  return content.replace(/[^\w$.\- ]/g, ' ');
}

function openString(line: Line, st: State, close: string, escapes: boolean, multiline: boolean): void {
  st.mode = STRING;
  st.close = close;
  st.escapes = escapes;
  st.multiline = multiline;
  line.parts.push('"');
}

/** Opens the string at the `"` on `i` (triple-quoted, raw or plain); returns where its content starts. */
export function openDoubleQuote(line: Line, i: number, st: State, d: Dialect): number {
  const text = line.text;
  if (d.tripleQuotes && text.startsWith('"""', i)) {
    openString(line, st, '"""', true, true);
    return i + 3;
  }
  const raw = rawString(text, i, d);
  if (raw) {
    openString(line, st, raw.close, false, true);
    return raw.from;
  }
  openString(line, st, '"', true, d.multilineStrings === true);
  return i + 1;
}

/** A raw string opening at the quote `i` (Rust `r#"`, C++ `R"x(`, C# `@"`): its terminator and content start. */
function rawString(text: string, i: number, d: Dialect): { close: string; from: number } | null {
  if (d.rawStrings === 'rust') {
    let k = i - 1;
    while (k >= 0 && text[k] === '#') k--;
    const before = text[k - 1] === 'b' ? text[k - 2] : text[k - 1];
    if (text[k] === 'r' && (before === undefined || !IDENT.test(before)))
      return { close: '"' + '#'.repeat(i - 1 - k), from: i + 1 };
  } else if (d.rawStrings === 'cpp' && text[i - 1] === 'R') {
    const paren = text.indexOf('(', i);
    if (paren > i && paren - i <= 17) return { close: `)${text.slice(i + 1, paren)}"`, from: paren + 1 };
  } else if (d.rawStrings === 'csharp' && (text[i - 1] === '@' || (text[i - 1] === '$' && text[i - 2] === '@'))) {
    return { close: '"', from: i + 1 };
  }
  return null;
}

/** A `'`: a string (JS, PHP), a char literal skipped whole, or code (a Rust lifetime). */
export function openSingleQuote(line: Line, i: number, st: State, d: Dialect): number {
  if (d.singleQuoteStrings) {
    openString(line, st, "'", true, false);
    return i + 1;
  }
  // A char literal ('x', '\n', '\u{1F600}', '{'); anything else is a Rust lifetime or a Scala symbol.
  const text = line.text;
  let end = -1;
  if (text[i + 1] === '\\') end = text.indexOf("'", i + 3);
  else if (text[i + 2] === "'") end = i + 2;
  else if (text[i + 3] === "'" && text.charCodeAt(i + 1) >= 0xd800 && text.charCodeAt(i + 1) < 0xdc00) end = i + 3;
  if (end < 0 || end - i > 12) {
    line.parts.push("'");
    return i + 1;
  }
  line.parts.push('" "');
  return end + 1;
}

/** A backquote: a template literal, a raw string or a quoted name, by dialect. */
export function openBacktick(line: Line, i: number, st: State, d: Dialect): number {
  if (d.backtick === 'template') {
    st.mode = TEMPLATE;
    st.close = '`';
    st.escapes = true;
    st.multiline = true;
    line.parts.push('"');
  } else openString(line, st, '`', false, d.backtick === 'raw');
  return i + 1;
}

/** A JS regex literal when the `/` at `i` cannot be a division; else the `/` as code. */
export function regexLiteral(line: Line, i: number, st: State): number {
  const text = line.text;
  if (!regexAllowed(text, i, st)) {
    line.parts.push('/');
    return i + 1;
  }
  let inClass = false;
  for (let j = i + 1; j < text.length; j++) {
    const ch = text[j];
    if (ch === '\\') j++;
    else if (ch === '[') inClass = true;
    else if (ch === ']') inClass = false;
    else if (ch === '/' && !inClass) {
      line.parts.push('" "');
      const flags = /^[a-z]*/.exec(text.slice(j + 1, j + 9))![0];
      return j + 1 + flags.length;
    }
  }
  line.parts.push('/');
  return i + 1;
}

function regexAllowed(text: string, i: number, st: State): boolean {
  let k = i - 1;
  while (k >= 0 && (text[k] === ' ' || text[k] === '\t')) k--;
  const prev = k >= 0 ? text[k]! : st.last;
  if (prev === '' || '(,=:[!&|?{};+-*%~^<>'.includes(prev)) return prev !== '<' && prev !== '>';
  if (!IDENT.test(prev) || k < 0) return false;
  let w = k;
  while (w > 0 && IDENT.test(text[w - 1]!)) w--;
  return REGEX_KEYWORDS.has(text.slice(w, k + 1));
}
