/**
 * Brace languages (JS/TS, Go, Rust, Java, Kotlin, C/C++, C#, PHP, Swift, Scala) cut by declarations:
 * each line at the current depth is matched against the language's declarations; a match extends to
 * the matching `}` of its body (or to its `;`); its doc comment and attributes above join it; class-like
 * bodies are cut again into members qualified by the class name. Lines in between become gaps.
 */
import { cFamilyMatcher } from './brace-decls-c.js';
import { type Decl, type DeclMatcher, GO_MATCHER, JS_MATCHER, RUST_MATCHER, type Scope } from './brace-decls.js';
import { type BraceScan, type Dialect, EVENT_CLOSE, EVENT_OPEN, EVENT_SEMI, scanBraces } from './brace-scan.js';
import {
  type ChunkKind,
  cleanComment,
  fillGaps,
  gapsOf,
  isBlank,
  MAX_NESTING,
  signatureOf,
  type Unit,
} from './units.js';

interface BraceLanguage {
  dialect: Dialect;
  matcher: DeclMatcher;
}

const JS: Dialect = { singleQuoteStrings: true, backtick: 'template', regexLiterals: true };
const C_FAMILY: Record<string, Dialect> = {
  java: { tripleQuotes: true },
  kotlin: { tripleQuotes: true, backtick: 'name' },
  scala: { tripleQuotes: true, backtick: 'name' },
  swift: { tripleQuotes: true },
  csharp: { tripleQuotes: true, rawStrings: 'csharp', preprocessor: true },
  c: { preprocessor: true },
  cpp: { preprocessor: true, rawStrings: 'cpp' },
  php: { singleQuoteStrings: true, hashComments: true, multilineStrings: true },
};

const LANGUAGES: Record<string, BraceLanguage> = {
  javascript: { dialect: JS, matcher: JS_MATCHER },
  typescript: { dialect: JS, matcher: JS_MATCHER },
  go: { dialect: { backtick: 'raw' }, matcher: GO_MATCHER },
  rust: { dialect: { rawStrings: 'rust', multilineStrings: true }, matcher: RUST_MATCHER },
};
for (const [id, dialect] of Object.entries(C_FAMILY)) LANGUAGES[id] = { dialect, matcher: cFamilyMatcher(id)! };

// Declarations whose head runs longer than this are not declarations.
const MAX_HEAD_LINES = 40;
const MAX_HEAD_CHARS = 400;
const TAIL_CHARS = 200;
const TRAILING_CONTINUATION = /(?:[=,([:?&|+\-*/.<>]|=>|->)\s*$/;
const LEADING_CONTINUATION = /^\s*(?:[{.?:=|&+\-*]|=>|->|(?:where|throws|extends|implements|with|requires)\b)/;

interface Ctx {
  lines: string[];
  scan: BraceScan;
  matcher: DeclMatcher;
}

/** A range of lines to cut at one depth, and what its members and gaps are called. */
interface Range {
  /** How many containers enclose the range: deeper ones are not cut (bounds the work on odd input). */
  level: number;
  from: number;
  to: number;
  depth: number;
  scope: Scope;
  path: string[];
  owner: string | null;
  memberKind: 'function' | 'method';
  gap: (start: number, end: number) => Unit;
}

/** Where a declaration ends: `open` is the event of its body's `{` (-1 when it has none). */
interface Extent {
  open: number;
  end: number;
}

/** The units of a file in a brace language; null when the language is not one. */
export function chunkBraces(lines: string[], language: string): Unit[] | null {
  const lang = LANGUAGES[language];
  if (!lang) return null;
  const ctx: Ctx = { lines, scan: scanBraces(lines, lang.dialect), matcher: lang.matcher };
  const moduleGap = gapsOf('module');
  return collect(ctx, {
    level: 0,
    from: 0,
    to: lines.length - 1,
    depth: 0,
    scope: 'top',
    path: [],
    owner: null,
    memberKind: 'function',
    gap: moduleGap,
  });
}

function collect(x: Ctx, range: Range): Unit[] {
  const { scan } = x;
  const units: Unit[] = [];
  let floor = range.from;
  for (let line = range.from; line <= range.to; line++) {
    if (scan.depth[line] !== range.depth || !scan.inCode[line] || !scan.hasCode[line]) continue;
    const decl = x.matcher.match(scan.masked[line]!.trimStart().slice(0, MAX_HEAD_CHARS), range.scope, range.owner);
    if (!decl) continue;
    const placed = place(x, range, decl, line, floor);
    units.push(...placed.units);
    if (placed.units.length > 0) floor = placed.end + 1;
    line = placed.end;
  }
  return fillGaps(range.from, range.to, units, range.gap);
}

function maskedText(x: Ctx, from: number, to: number): string {
  return x.scan.masked.slice(from, to + 1).join('\n');
}

/** The units of the declaration `decl` on line `s`, and the line it ends on. */
function place(x: Ctx, range: Range, found: Decl, s: number, floor: number): { units: Unit[]; end: number } {
  const extent = extentOf(x.scan, s, range.depth, range, found.expression);
  const headEnd = extent.open >= 0 ? x.scan.evLine[extent.open]! : extent.end;
  let decl: Decl | null = found;
  if (decl.arrow && !/=>|\bfunction\b/.test(maskedText(x, s, headEnd))) {
    decl = range.scope === 'top' ? { kind: 'block', name: decl.name, minLines: 3 } : null;
  }
  const none = { units: [], end: extent.end };
  if (!decl) return none;
  if (extent.open < 0 && decl.needsBody && !decl.bodiless?.test(maskedText(x, s, extent.end))) return none;
  if (extent.end - s + 1 < (decl.minLines ?? 1)) return none;
  const prefix = prefixOf(x, s, range.depth, floor);
  const name = decl.nameAfterBody ? nameAfterBody(x.scan.masked[extent.end]!) : decl.name;
  const unit: Unit = {
    start: prefix.start,
    end: extent.end,
    kind: kindOf(decl, range),
    symbol: name === null ? null : [...range.path, name].join('.'),
    signature: signatureAt(x, decl, s, extent),
    doc: prefix.doc,
  };
  const cut = decl.container && extent.open >= 0 && extent.end - headEnd >= 2 && range.level < MAX_NESTING;
  if (!cut) return { units: [unit], end: extent.end };
  return { units: container(x, range, decl, unit, headEnd), end: extent.end };
}

/** The declaration's lines up to its body's `{`; the first line of a statement without a body. */
function signatureAt(x: Ctx, decl: Decl, s: number, extent: Extent): string | null {
  const statement = decl.expression && decl.kind !== 'function' && decl.kind !== 'method' && !decl.container;
  const bodyless = extent.open < 0 || statement;
  if (bodyless) return signatureOf(x.lines, s, s);
  return signatureOf(x.lines, s, x.scan.evLine[extent.open]!, x.scan.evCol[extent.open]);
}

function kindOf(decl: Decl, range: Range): ChunkKind {
  return decl.kind === 'function' && range.memberKind === 'method' ? 'method' : decl.kind;
}

function nameAfterBody(masked: string): string | null {
  return /\}\s*\*?\s*([A-Za-z_]\w*)\s*[;,]/.exec(masked.slice(0, MAX_HEAD_CHARS))?.[1] ?? null;
}

/** A class-like declaration: its header (up to the first member), its members, the gaps between them. */
function container(x: Ctx, range: Range, decl: Decl, unit: Unit, headEnd: number): Unit[] {
  const inner = collect(x, {
    ...innerRange(range, decl, unit),
    level: range.level + 1,
    from: headEnd + 1,
    to: unit.end,
    depth: range.depth + 1,
  });
  const first = inner.findIndex((u) => !u.gap);
  const transparent = decl.container === 'transparent' || unit.symbol === null;
  if (first < 0) return transparent ? [] : [unit];
  const header: Unit = { ...unit, end: inner[first]!.start - 1 };
  const quiet = (transparent || decl.quietHeader || decl.container === 'namespace') && header.doc === null;
  const bare = quiet && x.lines.slice(header.start, header.end + 1).filter((l) => !isBlank(l)).length <= 1;
  if (bare) return [{ ...header, drop: true }, ...inner.slice(first)];
  // A namespace's first lines stay with the gap around them (the outer gap function covers them).
  return transparent ? inner : [header, ...inner.slice(first)];
}

/** The scope, names and gaps of a container's body; a transparent one (a namespace) keeps the outer ones. */
function innerRange(range: Range, decl: Decl, unit: Unit): Omit<Range, 'level' | 'from' | 'to' | 'depth'> {
  if (decl.container === 'transparent' || unit.symbol === null) return range;
  const scope: Scope = decl.container === 'object' ? 'object' : decl.container === 'class' ? 'class' : 'top';
  const gapKind: ChunkKind = scope === 'class' ? 'class' : scope === 'object' ? 'block' : 'module';
  return {
    scope,
    path: unit.symbol.split('.'),
    owner: decl.name?.split('.').pop() ?? null,
    memberKind: scope === 'top' ? 'function' : 'method',
    gap: (start, end) => ({ start, end, kind: gapKind, symbol: unit.symbol, signature: null, doc: null }),
  };
}

/**
 * Where the declaration starting on line `s` at depth `d` ends: at the `}` matching the first `{` at
 * its depth (its body), or at its `;`, or at a line end back at its depth that nothing continues. An
 * `expression` (`const x = …`) runs past its braces to the statement's end; its first brace is `open`.
 */
function extentOf(scan: BraceScan, s: number, d: number, range: Range, expression = false): Extent {
  const to = range.to;
  const limit = expression ? to : Math.min(to, s + MAX_HEAD_LINES);
  let open = -1;
  for (let line = s; line <= limit; line++) {
    for (let k = scan.lineEvent[line]!; k < scan.lineEvent[line + 1]!; k++) {
      const level = scan.evLevel[k]!;
      // The enclosing block closes: on a line of its own, that line is not this statement's.
      if (scan.evType[k] === EVENT_CLOSE && level < d)
        return { open, end: closesAlone(scan, line, s) ? line - 1 : line };
      if (level !== d) continue;
      if (scan.evType[k] === EVENT_SEMI) return { open, end: line };
      if (scan.evType[k] !== EVENT_OPEN) continue;
      if (!expression) return bodyExtent(scan, k, d, to);
      if (open < 0) open = k;
    }
    if (scan.depth[line + 1]! <= d && !continues(scan, line, range)) return { open, end: line };
  }
  return { open, end: limit };
}

function closesAlone(scan: BraceScan, line: number, s: number): boolean {
  return line > s && /^\s*[}\])]/.test(scan.masked[line]!);
}

function bodyExtent(scan: BraceScan, open: number, d: number, to: number): Extent {
  for (;;) {
    const close = scan.evMatch[open]!;
    if (close < 0) return { open, end: to };
    const end = Math.min(scan.evLine[close]!, to);
    const next = close + 1;
    // `f(): { a: number } {`: the first braces were a type; the body is the block right after them.
    const again = scan.evType[next] === EVENT_OPEN && scan.evLevel[next] === d && scan.evLine[next] === end;
    if (!again) return { open, end };
    open = next;
  }
}

function continues(scan: BraceScan, line: number, range: Range): boolean {
  // The line's end is what matters (and a bounded input keeps the pattern linear on giant lines).
  const code = scan.masked[line]!.slice(-TAIL_CHARS);
  // In an object literal a comma ends the member; elsewhere it continues a list.
  if (TRAILING_CONTINUATION.test(code)) return range.scope !== 'object' || !/,\s*$/.test(code);
  // `{` on the next line (Allman style), `throws …`, `where …`, `: Base(…)`, `.then(…)`.
  return line < range.to && LEADING_CONTINUATION.test(scan.masked[line + 1]!);
}

/** The first line of the doc comment and attributes right above line `s`, and the doc's text. */
function prefixOf(x: Ctx, s: number, d: number, floor: number): { start: number; doc: string | null } {
  const { scan, lines } = x;
  const comments: string[] = [];
  let start = s;
  let line = s - 1;
  while (line >= floor && !isBlank(lines[line])) {
    if (!scan.hasCode[line]) {
      // Rust's `//!` documents the enclosing module, not the item below.
      if (/^\s*\/\/!/.test(lines[line]!)) break;
      comments.unshift(lines[line]!);
      start = line--;
      continue;
    }
    let top = line;
    while (top > floor && (scan.depth[top]! > d || !scan.inCode[top])) top--;
    if (scan.depth[top] !== d || !x.matcher.attribute?.test(scan.masked[top]!.trimStart())) break;
    start = top;
    line = top - 1;
  }
  return { start, doc: comments.length > 0 ? cleanComment(comments) : null };
}
