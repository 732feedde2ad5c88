/**
 * What the chunkers produce before it becomes a `CodeChunk`: a `Unit` is a 0-based inclusive line
 * range with its kind, symbol, signature and doc. Helpers shared by the chunkers: gaps between
 * declarations, comment and docstring cleaning, signatures, and splitting of long units.
 */

/** The kinds of chunk, as `CodeChunk.kind` names them. */
export type ChunkKind = 'function' | 'method' | 'class' | 'block' | 'module' | 'section' | 'example';

/** A chunk before its text is attached: lines `start`..`end` (0-based, inclusive). */
export interface Unit {
  start: number;
  end: number;
  kind: ChunkKind;
  symbol: string | null;
  signature: string | null;
  doc: string | null;
  /** The lines between declarations: dropped when trivial, merged with an adjacent gap of the same scope. */
  gap?: boolean;
  /** Lines a chunker covers without a chunk (a bare `impl X {` line): not emitted, not a gap either. */
  drop?: boolean;
  /** The chunk's own language when it differs from the file's (a Markdown fence). */
  language?: string;
}

/** Where a structural chunker is looking: a range of lines inside enclosing classes (or modules). */
export interface Scope {
  /** Classes (and modules) enclosing the range; deeper ones are not cut. */
  level: number;
  from: number;
  to: number;
  indent: number;
  path: string[];
  inClass: boolean;
}

/** The whole file as a chunker's outermost scope, its declarations at `indent`. */
export function fileScope(lines: string[], indent: number): Scope {
  return { level: 0, from: 0, to: lines.length - 1, indent, path: [], inClass: false };
}

/** Longest chunk before it is cut into parts, and the length of the parts. */
export const MAX_CHUNK_LINES = 150;
const PART_LINES = 100;
const GAP_PART_LINES = 60;
const MAX_SIGNATURE_CHARS = 400;
/** Classes nested deeper than this are not cut into members (bounds the work on odd input). */
export const MAX_NESTING = 8;

/** Whether a line is empty or whitespace (a missing line counts as blank). */
export function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === '';
}

/** Indentation width; a tab goes to the next multiple of 8, as Python counts it. */
export function indentOf(line: string): number {
  let width = 0;
  for (const ch of line) {
    if (ch === ' ') width++;
    else if (ch === '\t') width = (Math.floor(width / 8) + 1) * 8;
    else break;
  }
  return width;
}

/**
 * `units` (sorted, inside `from`..`to`) with a gap unit from `makeGap` in every hole between them, so
 * that the result covers the range.
 */
export function fillGaps(
  from: number,
  to: number,
  units: Unit[],
  makeGap: (start: number, end: number) => Unit,
): Unit[] {
  const out: Unit[] = [];
  let next = from;
  for (const unit of units) {
    if (unit.start > next) out.push({ ...makeGap(next, unit.start - 1), gap: true });
    out.push(unit);
    next = Math.max(next, unit.end + 1);
  }
  if (next <= to) out.push({ ...makeGap(next, to), gap: true });
  return out;
}

/** The maker of gap units of one kind (and symbol), for `fillGaps`: no signature, no doc. */
export function gapsOf(kind: ChunkKind, symbol: string | null = null): (start: number, end: number) => Unit {
  return (start, end) => ({ start, end, kind, symbol, signature: null, doc: null });
}

/** The gap units of a scope: a class's lines between its members, or the module's. */
export function scopeGaps(scope: Scope): (start: number, end: number) => Unit {
  return gapsOf(scope.inClass ? 'class' : 'module', scope.inClass ? scope.path.join('.') : null);
}

// Lines that carry nothing when alone: closing punctuation, `end`, package lines, `<?php`, shebangs.
const MAX_TRIVIAL_CHARS = 200;
// A closing line may carry a comment: `}  // namespace geo`.
const TRIVIAL_LINE =
  /^\s*(?:(?:[{}()[\];,]+|end|fi|done|esac)\s*(?:(?:\/\/|#).*)?|package\s+[\w.]+;?|<\?php|\?>|(['"])use strict\1;?|#!.*|---|\.\.\.)?\s*$/;

/** Whether every line of the unit is blank or trivial. */
export function isTrivial(lines: string[], unit: Unit): boolean {
  for (let i = unit.start; i <= unit.end; i++) {
    const line = lines[i]!;
    // Trivial lines are short; the length test also keeps the pattern from backtracking on long ones.
    if (line.length > MAX_TRIVIAL_CHARS || !TRIVIAL_LINE.test(line)) return false;
  }
  return true;
}

/** Removes common indentation and blank edge lines; null when nothing is left. */
export function dedentBlock(rows: string[]): string | null {
  let first = 0;
  let last = rows.length - 1;
  while (first <= last && isBlank(rows[first])) first++;
  while (last >= first && isBlank(rows[last])) last--;
  if (first > last) return null;
  const kept = rows.slice(first, last + 1).map((row) => row.trimEnd());
  const margin = Math.min(...kept.filter((row) => row !== '').map((row) => row.length - row.trimStart().length));
  return kept.map((row) => row.slice(margin)).join('\n');
}

// Comment markers: /** /*! /* * */ /// //! // # -- ;
const COMMENT_START = /^\s*(?:\/\*+!?|\*+\/?|\/\/[/!]?|#+|--|;+)/;
const COMMENT_END = /\s*\*+\/\s*$/;
const MAX_DOC_LINE = 1_000;

/** The text of a comment block (`//`, `///`, `/** *\/`, `#`, `--` lines), markers removed; null if empty. */
export function cleanComment(rows: string[]): string | null {
  // Doc lines are cut at 1,000 characters: the patterns stay linear, and longer ones are not prose.
  return dedentBlock(rows.map((row) => row.slice(0, MAX_DOC_LINE).replace(COMMENT_END, '').replace(COMMENT_START, '')));
}

/** A docstring's text the way Python's `inspect.cleandoc` reads it. */
export function cleanDocstring(text: string): string | null {
  const [head = '', ...rest] = text.split(/\r?\n/);
  const margin = Math.min(...rest.filter((row) => !isBlank(row)).map((row) => row.length - row.trimStart().length));
  const body = rest.map((row) => (isBlank(row) ? '' : row.slice(margin).trimEnd()));
  return dedentBlock([head.trim(), ...body]);
}

/**
 * The declaration text of lines `start`..`end`: the last line cut at `cutColumn` when given (the body's
 * opening brace), dedented, a trailing `{`, `:` or `;` dropped, at most 400 characters.
 */
export function signatureOf(lines: string[], start: number, end: number, cutColumn = -1): string | null {
  const rows = lines.slice(start, Math.min(end, start + 7) + 1);
  if (cutColumn >= 0 && end < start + 8) rows[rows.length - 1] = rows[rows.length - 1]!.slice(0, cutColumn);
  let text = dedentBlock(rows)?.trim() ?? '';
  if ('{:;'.includes(text[text.length - 1] ?? '')) text = text.slice(0, -1).trimEnd();
  if (!text) return null;
  return text.length > MAX_SIGNATURE_CHARS ? `${text.slice(0, MAX_SIGNATURE_CHARS)}…` : text;
}

function cutPoint(lines: string[], start: number, target: number): number {
  // The last blank line in the back third of the part, else the target length.
  for (let i = start + target; i > start + (target * 2) / 3; i--) if (isBlank(lines[i])) return i;
  return start + target;
}

/**
 * A unit longer than `MAX_CHUNK_LINES` cut into consecutive parts at blank lines where possible: each
 * part keeps the symbol, kind and signature; the doc stays with the first part (which holds it).
 */
export function splitLong(lines: string[], unit: Unit): Unit[] {
  if (unit.end - unit.start + 1 <= MAX_CHUNK_LINES) return [unit];
  const target = unit.gap || unit.kind === 'block' || unit.kind === 'section' ? GAP_PART_LINES : PART_LINES;
  const parts: Unit[] = [];
  let start = unit.start;
  while (unit.end - start + 1 > MAX_CHUNK_LINES) {
    const cut = cutPoint(lines, start, target);
    parts.push({ ...unit, start, end: cut - 1, doc: parts.length === 0 ? unit.doc : null });
    start = cut;
  }
  parts.push({ ...unit, start, end: unit.end, doc: parts.length === 0 ? unit.doc : null });
  return parts.map((part) => trimBlankEdges(lines, part)).filter((part): part is Unit => part !== null);
}

/** The unit without its leading and trailing blank lines; null when it is all blank. */
export function trimBlankEdges(lines: string[], unit: Unit): Unit | null {
  let { start, end } = unit;
  while (start <= end && isBlank(lines[start])) start++;
  while (end >= start && isBlank(lines[end])) end--;
  if (start > end) return null;
  return start === unit.start && end === unit.end ? unit : { ...unit, start, end };
}
