/**
 * The fallback chunker: overlapping windows of about 60 lines, cut at blank lines where possible, for
 * languages without a structural chunker and for files the structural chunkers cannot read.
 */
import { isBlank, type Unit } from './units.js';

const WINDOW_LINES = 60;
const OVERLAP_LINES = 10;
// Minified code: a window also stops at this many characters (one line at least).
const WINDOW_CHARS = 16_000;
// A last window shorter than this joins the one before.
const TAIL_LINES = 15;

function windowEnd(lines: string[], start: number): number {
  let chars = 0;
  let end = start;
  const limit = Math.min(lines.length - 1, start + WINDOW_LINES - 1);
  while (end < limit && chars + lines[end]!.length + lines[end + 1]!.length <= WINDOW_CHARS)
    chars += lines[end++]!.length;
  if (end === limit && lines.length - 1 - end <= TAIL_LINES && chars < WINDOW_CHARS / 2) return lines.length - 1;
  if (end < limit || end === lines.length - 1) return end;
  // The last blank line in the back third of the window, else the full window.
  for (let i = end; i > start + (WINDOW_LINES * 2) / 3; i--) if (isBlank(lines[i])) return i - 1;
  return end;
}

function nextStart(lines: string[], start: number, end: number): number {
  const overlap = Math.min(OVERLAP_LINES, Math.floor((end - start + 1) / 4));
  let next = end + 1 - overlap;
  // Begin after a blank line near the overlap point, so that a window starts with a paragraph.
  for (let i = next - 3; i <= next + 3 && i <= end; i++) {
    if (i > start && isBlank(lines[i])) {
      next = i + 1;
      break;
    }
  }
  return Math.max(next, start + 1);
}

/** Windows over all of `lines` (kind `block`); all-blank windows are left out. */
export function windowUnits(lines: string[]): Unit[] {
  const units: Unit[] = [];
  let start = 0;
  while (start < lines.length) {
    while (start < lines.length && isBlank(lines[start])) start++;
    if (start >= lines.length) break;
    const end = windowEnd(lines, start);
    units.push({ start, end, kind: 'block', symbol: null, signature: null, doc: null });
    if (end >= lines.length - 1) break;
    start = nextStart(lines, start, end);
  }
  return units;
}
