/**
 * Python cut by indentation: `def`, `async def` and `class` at a block's indentation extend until the
 * next logical line indented no deeper; decorators and `#` comments right above join them; docstrings
 * become the doc. Classes are cut again into methods qualified `Class.method`.
 */
import {
  cleanComment,
  cleanDocstring,
  fileScope,
  fillGaps,
  scopeGaps,
  indentOf,
  isBlank,
  MAX_NESTING,
  signatureOf,
  type Unit,
  type Scope,
} from './units.js';

/** Per line: whether it starts a logical line, its indentation, and whether it holds code. */
interface PyScan {
  lines: string[];
  logical: Uint8Array;
  indent: Int32Array;
  code: Uint8Array;
}

const DECL = /^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/;
const STRING_START = /^[rRuUbBfF]{0,2}("""|'''|"|')/;

/** The units of a Python file. */
export function chunkPython(lines: string[]): Unit[] {
  const scan = scanPython(lines);
  const units = collect(scan, fileScope(lines, firstIndent(scan, 0, lines.length - 1)));
  const first = units[0];
  if (first?.gap) first.doc = docstringAt(scan, first.start, first.end);
  return units;
}

function scanPython(lines: string[]): PyScan {
  const n = lines.length;
  const scan: PyScan = { lines, logical: new Uint8Array(n), indent: new Int32Array(n), code: new Uint8Array(n) };
  let depth = 0;
  let quote = '';
  let joined = false;
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    scan.logical[i] = depth === 0 && quote === '' && !joined ? 1 : 0;
    scan.indent[i] = indentOf(line);
    const trimmed = line.trimStart();
    scan.code[i] = quote !== '' || (trimmed !== '' && !trimmed.startsWith('#')) ? 1 : 0;
    let j = 0;
    for (; j < line.length; j++) {
      const ch = line[j]!;
      if (quote !== '') {
        if (ch === '\\') j++;
        else if (line.startsWith(quote, j)) {
          j += quote.length - 1;
          quote = '';
        }
      } else if (ch === '#') break;
      else if (ch === '"' || ch === "'") {
        quote = line.startsWith(ch.repeat(3), j) ? ch.repeat(3) : ch;
        j += quote.length - 1;
      } else if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
    }
    // A one-quote string ends at the line end; a backslash joins the next line.
    if (quote.length === 1) quote = '';
    joined = quote === '' && j === line.length && line.endsWith('\\');
  }
  return scan;
}

function firstIndent(scan: PyScan, from: number, to: number): number {
  for (let i = from; i <= to; i++) if (scan.logical[i] && scan.code[i]) return scan.indent[i]!;
  return 0;
}

/** The last line of the logical line starting at `i`. */
function logicalEnd(scan: PyScan, i: number, to: number): number {
  let j = i;
  while (j < to && !scan.logical[j + 1]) j++;
  return j;
}

function collect(scan: PyScan, scope: Scope): Unit[] {
  const units: Unit[] = [];
  let floor = scope.from;
  for (let i = scope.from; i <= scope.to; i++) {
    if (!scan.logical[i] || !scan.code[i] || scan.indent[i] !== scope.indent) continue;
    const m = DECL.exec(scan.lines[i]!.trimStart());
    if (!m) continue;
    const placed = place(scan, scope, i, floor, m[1] === 'class', m[2]!);
    units.push(...placed.units);
    floor = placed.end + 1;
    i = placed.end;
  }
  return fillGaps(scope.from, scope.to, units, scopeGaps(scope));
}

function place(
  scan: PyScan,
  scope: Scope,
  i: number,
  floor: number,
  isClass: boolean,
  name: string,
): { units: Unit[]; end: number } {
  const headEnd = logicalEnd(scan, i, scope.to);
  const end = blockEnd(scan, headEnd, scope);
  const prefix = prefixOf(scan, i, scope.indent, floor);
  const docstring = docstringAt(scan, headEnd + 1, end);
  const path = [...scope.path, name];
  const unit: Unit = {
    start: prefix.start,
    end,
    kind: isClass ? 'class' : scope.inClass ? 'method' : 'function',
    symbol: path.join('.'),
    signature: signatureOf(scan.lines, i, headEnd),
    doc: docstring ?? prefix.doc,
  };
  if (!isClass || end <= headEnd || scope.level >= MAX_NESTING) return { units: [unit], end };
  const inner = collect(scan, {
    level: scope.level + 1,
    from: headEnd + 1,
    to: end,
    indent: firstIndent(scan, headEnd + 1, end),
    path,
    inClass: true,
  });
  const first = inner.findIndex((u) => !u.gap);
  if (first < 0) return { units: [unit], end };
  return { units: [{ ...unit, end: inner[first]!.start - 1 }, ...inner.slice(first)], end };
}

/** The last code line of the block whose header ends on `headEnd`. */
function blockEnd(scan: PyScan, headEnd: number, scope: Scope): number {
  let last = headEnd;
  for (let j = headEnd + 1; j <= scope.to; j++) {
    if (scan.logical[j] && !scan.code[j]) continue;
    if (scan.logical[j] && scan.indent[j]! <= scope.indent) break;
    last = j;
  }
  return last;
}

/** Decorators and `#` comments right above line `i`: where they start, and the comments' text. */
function prefixOf(scan: PyScan, i: number, indent: number, floor: number): { start: number; doc: string | null } {
  const comments: string[] = [];
  let start = i;
  let line = i - 1;
  while (line >= floor && !isBlank(scan.lines[line])) {
    let top = line;
    while (top > floor && !scan.logical[top]) top--;
    const text = scan.lines[top]!.trimStart();
    if (scan.indent[top] !== indent || !(text.startsWith('@') || text.startsWith('#'))) break;
    if (text.startsWith('#')) comments.unshift(scan.lines[top]!);
    start = top;
    line = top - 1;
  }
  return { start, doc: comments.length > 0 ? cleanComment(comments) : null };
}

/** The docstring of the block starting on line `from` (its first statement, when a string). */
function docstringAt(scan: PyScan, from: number, to: number): string | null {
  let i = from;
  while (i <= to && scan.logical[i] && !scan.code[i]) i++;
  if (i > to || !scan.logical[i]) return null;
  const text = scan.lines
    .slice(i, logicalEnd(scan, i, to) + 1)
    .join('\n')
    .trimStart();
  const quote = STRING_START.exec(text);
  if (!quote) return null;
  const body = text.slice(quote[0].length);
  const close = body.indexOf(quote[1]!);
  return close < 0 ? null : cleanDocstring(body.slice(0, close));
}
