/**
 * Lists: a list of short items becomes one Markdown list block (nested lists indented, ordered lists
 * numbered from `start`, definition lists as `- **term**: definition`); a list used as a page layout
 * (items holding headings, tables, code or articles) is walked as a container instead.
 */
import type { ChildNode, Element } from 'domhandler';
import { HEADING_TAGS, hasDescendant, isTag, isText } from './dom.js';
import { type InlineOptions, renderInline } from './inline.js';

/** A rendered list block. */
export interface RenderedList {
  md: string;
  text: string;
  textChars: number;
  linkChars: number;
}

const LIST_TAGS = new Set(['ul', 'ol', 'menu', 'dl']);
const LAYOUT_INSIDE = new Set([
  ...HEADING_TAGS,
  'table',
  'pre',
  'blockquote',
  'figure',
  'article',
  'section',
  'form',
  'header',
  'footer',
]);

/** True when the list is a page layout (cards, posts, sections) rather than a list of items. */
export function isLayoutList(list: Element): boolean {
  return hasDescendant(list, (el) => LAYOUT_INSIDE.has(el.name));
}

interface Acc {
  md: string[];
  text: string[];
  textChars: number;
  linkChars: number;
}

/** Renders a list (ul/ol/menu/dl) and its nested lists. */
export function renderList(list: Element, opts: InlineOptions): RenderedList {
  const acc: Acc = { md: [], text: [], textChars: 0, linkChars: 0 };
  addList(list, 0, opts, acc);
  return { md: acc.md.join('\n'), text: acc.text.join('\n'), textChars: acc.textChars, linkChars: acc.linkChars };
}

function addList(list: Element, depth: number, opts: InlineOptions, acc: Acc): void {
  if (list.name === 'dl') return addDefinitions(list, depth, opts, acc);
  const ordered = list.name === 'ol';
  let n = Number.parseInt(list.attribs.start ?? '1', 10);
  if (!Number.isFinite(n)) n = 1;
  for (const child of list.children) {
    if (isTag(child) && LIST_TAGS.has(child.name)) {
      addList(child, depth + 1, opts, acc);
    } else if (isTag(child) && child.name === 'li') {
      addItem(child, ordered ? `${n++}. ` : '- ', depth, opts, acc);
    } else if (isText(child) && child.data.trim()) {
      addLine(renderInline([child], opts), '- ', depth, acc);
    }
  }
}

function addLine(r: { md: string; text: string; linkChars: number }, marker: string, depth: number, acc: Acc) {
  const md = r.md.replace(/\s*\n\s*/g, ' ');
  const text = r.text.replace(/\s*\n\s*/g, ' ');
  if (!text) return;
  const indent = '  '.repeat(depth);
  acc.md.push(`${indent}${marker}${md}`);
  acc.text.push(`${indent}${marker === '- ' ? '' : marker}${text}`);
  acc.textChars += text.length;
  acc.linkChars += r.linkChars;
}

function addItem(li: Element, marker: string, depth: number, opts: InlineOptions, acc: Acc): void {
  const inline: ChildNode[] = [];
  const nested: Element[] = [];
  for (const child of li.children) {
    if (isTag(child) && LIST_TAGS.has(child.name)) nested.push(child);
    else inline.push(child);
  }
  addLine(renderInline(inline, opts), marker, depth, acc);
  for (const sub of nested) addList(sub, depth + 1, opts, acc);
}

function addDefinitions(dl: Element, depth: number, opts: InlineOptions, acc: Acc): void {
  let term: { md: string; text: string; linkChars: number } | null = null;
  const flushTerm = () => {
    if (term) addLine({ ...term, md: `**${term.md}**` }, '- ', depth, acc);
    term = null;
  };
  for (const child of dl.children) {
    if (!isTag(child)) continue;
    if (child.name === 'dt') {
      flushTerm();
      term = renderInline(child.children, opts);
    } else if (child.name === 'dd') {
      const def = renderInline(child.children, opts);
      if (term && term.text) {
        const t: { md: string; text: string; linkChars: number } = term;
        addLine(
          { md: `**${t.md}**: ${def.md}`, text: `${t.text}: ${def.text}`, linkChars: t.linkChars + def.linkChars },
          '- ',
          depth,
          acc,
        );
        term = null;
      } else addLine(def, '- ', depth + (term === null ? 0 : 1), acc);
    } else if (child.name === 'div') {
      addDefinitions(child, depth, opts, acc);
    }
  }
  flushTerm();
}
