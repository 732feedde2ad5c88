/**
 * Tables: tell data tables (rendered as Markdown pipe tables) from layout tables (walked as ordinary
 * containers, cell by cell), and render the former.
 */
import type { Element } from 'domhandler';
import { hasDescendant, isTag } from './dom.js';
import { type InlineOptions, renderInline } from './inline.js';

/** A rendered data table. */
export interface RenderedTable {
  md: string;
  text: string;
  textChars: number;
  linkChars: number;
}

const SECTION_TAGS = new Set(['thead', 'tbody', 'tfoot']);
const CELL_TAGS = new Set(['td', 'th']);
const LAYOUT_INSIDE = new Set(['table', 'h1', 'h2', 'h3', 'pre', 'article', 'form', 'nav']);
const MAX_CELL_CHARS = 600;

/** The rows of a table (not of tables nested in it). */
export function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') rows.push(child);
    else if (SECTION_TAGS.has(child.name)) {
      for (const r of child.children) if (isTag(r) && r.name === 'tr') rows.push(r);
    }
  }
  return rows;
}

function cells(row: Element): Element[] {
  return row.children.filter((c): c is Element => isTag(c) && CELL_TAGS.has(c.name));
}

function span(cell: Element): number {
  const n = Number.parseInt(cell.attribs.colspan ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, 20) : 1;
}

/** True for a table that holds data (rows and columns), false for one used for page layout. */
export function isDataTable(table: Element): boolean {
  const role = table.attribs.role;
  if (role === 'presentation' || role === 'none') return false;
  const rows = tableRows(table);
  if (rows.length === 0) return false;
  let maxCols = 0;
  for (const row of rows) {
    let cols = 0;
    for (const cell of cells(row)) {
      cols += span(cell);
      if (hasDescendant(cell, (el) => LAYOUT_INSIDE.has(el.name))) return false;
    }
    maxCols = Math.max(maxCols, cols);
  }
  if (maxCols < 2) return false;
  const headed = hasDescendant(table, (el) => el.name === 'th' || el.name === 'thead' || el.name === 'caption');
  return rows.length >= 2 || headed;
}

function cellText(cell: Element, opts: InlineOptions): { md: string; text: string; linkChars: number } {
  const r = renderInline(cell.children, opts);
  const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();
  return { md: oneLine(r.md).replace(/\|/g, '\\|'), text: oneLine(r.text), linkChars: r.linkChars };
}

/** Renders a data table as a Markdown pipe table (first row as header when no `<th>` row exists). */
export function renderTable(table: Element, opts: InlineOptions): RenderedTable | null {
  const mdRows: string[][] = [];
  const textRows: string[] = [];
  let linkChars = 0;
  let textChars = 0;
  for (const row of tableRows(table)) {
    const md: string[] = [];
    const text: string[] = [];
    for (const cell of cells(row)) {
      const c = cellText(cell, opts);
      if (c.text.length > MAX_CELL_CHARS) return null;
      linkChars += c.linkChars;
      textChars += c.text.length;
      md.push(c.md);
      for (let i = span(cell); i > 1; i--) md.push('');
      if (c.text) text.push(c.text);
    }
    if (text.length === 0) continue;
    mdRows.push(md);
    textRows.push(text.join(' | '));
  }
  if (mdRows.length === 0) return null;
  const width = Math.max(...mdRows.map((r) => r.length));
  const line = (r: string[]) => `| ${[...r, ...Array<string>(width - r.length).fill('')].join(' | ')} |`;
  const [head, ...body] = mdRows;
  const md = [line(head!), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
  const caption = table.children.find((c): c is Element => isTag(c) && c.name === 'caption');
  const captionText = caption ? renderInline(caption.children, opts).text : '';
  return {
    md: captionText ? `${captionText}\n\n${md}` : md,
    text: [captionText, ...textRows].filter(Boolean).join('\n'),
    textChars: textChars + captionText.length,
    linkChars,
  };
}
