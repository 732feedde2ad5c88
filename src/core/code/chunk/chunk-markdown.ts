/**
 * Markdown cut at headings (ATX `#` and setext underlines) and fenced code blocks: each fence is an
 * `example` chunk in its fence's language, with the paragraph before it as its doc; the prose around
 * the fences makes `section` chunks named by their heading.
 */
import { normalizeLanguage } from './languages.js';
import { dedentBlock, isBlank, type Unit } from './units.js';

const FENCE = /^\s*(`{3,}|~{3,})\s*\{?\.?([^\s`{}]*)/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
const LIST_OR_QUOTE = /^\s*(?:[-*+>]|\d+[.)])\s/;

interface Section {
  heading: string | null;
  /** The heading's first line (-1 for the text before the first heading). */
  line: number;
  /** Where the current run of prose starts. */
  from: number;
}

/** The units of a Markdown file. */
export function chunkMarkdown(lines: string[]): Unit[] {
  const units: Unit[] = [];
  let section: Section = { heading: null, line: -1, from: 0 };
  let i = frontMatterEnd(lines) + 1;
  for (; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (fence) {
      const end = fenceEnd(lines, i, fence[1]!);
      prose(lines, section, i - 1, units);
      units.push(example(lines, section, i, end, fence[2] ?? ''));
      section = { ...section, from: end + 1 };
      i = end;
      continue;
    }
    const heading = headingAt(lines, i);
    if (heading === null) continue;
    prose(lines, section, i - 1, units);
    section = { heading, line: i, from: i };
    if (!ATX.test(lines[i]!)) i++;
  }
  prose(lines, section, lines.length - 1, units);
  return units;
}

function frontMatterEnd(lines: string[]): number {
  if (lines[0] !== '---') return -1;
  for (let i = 1; i < lines.length; i++) if (lines[i] === '---' || lines[i] === '...') return i;
  return -1;
}

/** The heading text on line `i` (ATX, or setext when the next line underlines it), else null. */
function headingAt(lines: string[], i: number): string | null {
  const atx = ATX.exec(lines[i]!);
  // The closing sequence of `## Title ##` is not part of the title.
  if (atx) return (atx[2] ?? '').replace(/(?:^|[ \t])#+[ \t]*$/, '').trim();
  const text = lines[i]!;
  const under = lines[i + 1];
  if (under === undefined || isBlank(text) || !SETEXT.test(under) || LIST_OR_QUOTE.test(text)) return null;
  // A setext heading is a paragraph of one line: the line above must end the previous block.
  return i === 0 || isBlank(lines[i - 1]) ? text.trim() : null;
}

function fenceEnd(lines: string[], start: number, marker: string): number {
  const close = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
  for (let i = start + 1; i < lines.length; i++) if (close.test(lines[i]!)) return i;
  return lines.length - 1;
}

/** The prose of `section` up to line `end`, unless it holds nothing but its heading. */
function bodyStart(lines: string[], section: Section): number {
  if (section.from !== section.line) return section.from;
  return section.line + (ATX.test(lines[section.line]!) ? 1 : 2);
}

function prose(lines: string[], section: Section, end: number, units: Unit[]): void {
  const start = section.from;
  const withHeading = start === section.line;
  const bodyFrom = bodyStart(lines, section);
  let content = false;
  for (let i = bodyFrom; i <= end && !content; i++) content = !isBlank(lines[i]);
  if (!content) return;
  units.push({
    start,
    end,
    kind: 'section',
    symbol: section.heading,
    signature: withHeading ? lines[start]!.trim() : null,
    doc: null,
  });
}

function example(lines: string[], section: Section, start: number, end: number, info: string): Unit {
  return {
    start,
    end,
    kind: 'example',
    symbol: section.heading,
    signature: null,
    doc: paragraphBefore(lines, start, bodyStart(lines, section)),
    language: normalizeLanguage(info) ?? (info.toLowerCase() || 'text'),
  };
}

/** The paragraph that introduces the fence on line `fence` (a blank line between is allowed). */
function paragraphBefore(lines: string[], fence: number, floor: number): string | null {
  let end = fence - 1;
  while (end >= floor && isBlank(lines[end])) end--;
  let start = end;
  while (start - 1 >= floor && !isBlank(lines[start - 1]) && !FENCE.test(lines[start - 1]!)) start--;
  if (end < floor || FENCE.test(lines[end]!)) return null;
  return dedentBlock(lines.slice(start, end + 1));
}
