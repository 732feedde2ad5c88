/**
 * Inline content to Markdown and plain text in one pass: links as `[text](absolute url)`, inline code
 * in backticks, emphasis, `<br>` as line breaks, whitespace collapsed the way a browser shows it.
 * Counts the characters that sit inside links, which the main-content scorer uses.
 */
import type { ChildNode, Element } from 'domhandler';
import { BLOCK_TAGS, isTag, isText, rawText } from './dom.js';
import type { UrlResolver } from './urls.js';

/** Inline content rendered both ways, with the number of text characters inside links. */
export interface Inline {
  md: string;
  text: string;
  linkChars: number;
}

/** How inline content is rendered: link markup on or off, and the resolver for hrefs. */
export interface InlineOptions {
  urls: UrlResolver;
  /** Render `[text](url)` for links (off for navigation-like blocks). */
  links: boolean;
}

const CODE_TAGS = new Set(['code', 'kbd', 'samp', 'tt', 'var']);
const STRONG_TAGS = new Set(['strong', 'b']);
const EM_TAGS = new Set(['em', 'i', 'cite', 'dfn']);
const SKIP_TAGS = new Set(['img', 'picture', 'br', 'wbr', 'hr']);
const WS = /[\t\n\f\r \u00a0\u200b\ufeff]+/g;

class Builder {
  md = '';
  text = '';
  linkChars = 0;
}

/** Renders a run of inline nodes. */
export function renderInline(nodes: readonly ChildNode[], opts: InlineOptions): Inline {
  const b = new Builder();
  for (const node of nodes) walk(node, b, opts);
  return { md: tidy(b.md), text: tidy(b.text), linkChars: b.linkChars };
}

/** Normalises the spaces a collapsed inline run leaves around line breaks. */
export function tidy(s: string): string {
  let out = s.includes('  ') ? s.replace(/ {2,}/g, ' ') : s;
  if (out.includes('\n')) out = out.replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n');
  return out.trim();
}

function walk(node: ChildNode, b: Builder, opts: InlineOptions): void {
  if (isText(node)) {
    const t = node.data.replace(WS, ' ');
    b.md += t;
    b.text += t;
    return;
  }
  if (!isTag(node)) return;
  const name = node.name;
  if (name === 'br') {
    b.md += '\n';
    b.text += '\n';
  } else if (SKIP_TAGS.has(name)) {
    return;
  } else if (name === 'a') {
    link(node, b, opts);
  } else if (CODE_TAGS.has(name)) {
    code(node, b);
  } else if (STRONG_TAGS.has(name)) {
    wrap(node, b, opts, '**');
  } else if (EM_TAGS.has(name)) {
    wrap(node, b, opts, '*');
  } else if (BLOCK_TAGS.has(name)) {
    // a block inside inline content (a list item or table cell with paragraphs): keep a line break
    b.md += '\n';
    b.text += '\n';
    for (const child of node.children) walk(child, b, opts);
    b.md += '\n';
    b.text += '\n';
  } else {
    for (const child of node.children) walk(child, b, opts);
  }
}

function inner(el: Element, opts: InlineOptions): Builder {
  const sub = new Builder();
  for (const child of el.children) walk(child, sub, opts);
  return sub;
}

/** Moves leading/trailing spaces outside a marker pair so `<b> x </b>` gives ` **x** `. */
function surround(s: string, open: string, close: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(s);
  if (!m || !m[2]) return s;
  return `${m[1]}${open}${m[2]}${close}${m[3]}`;
}

function wrap(el: Element, b: Builder, opts: InlineOptions, marker: string): void {
  const sub = inner(el, opts);
  b.md += sub.md.includes('\n') ? sub.md : surround(sub.md, marker, marker);
  b.text += sub.text;
  b.linkChars += sub.linkChars;
}

function link(el: Element, b: Builder, opts: InlineOptions): void {
  const sub = inner(el, opts);
  const label = sub.text.trim();
  b.text += sub.text;
  b.linkChars += label.length;
  if (!opts.links || !label || sub.md.includes('\n')) {
    b.md += sub.md;
    return;
  }
  const url = opts.urls.linkTarget(el.attribs.href);
  if (!url) {
    b.md += sub.md;
    return;
  }
  b.md += surround(sub.md, '[', `](${url.replace(/[()\s]/g, encodeURIComponent)})`);
}

function code(el: Element, b: Builder): void {
  const t = rawText(el).replace(WS, ' ');
  const trimmed = t.trim();
  b.text += t;
  if (!trimmed) {
    b.md += t;
    return;
  }
  const fence = trimmed.includes('`') ? '``' : '`';
  const pad = fence.length > 1 ? ' ' : '';
  b.md += surround(t, fence + pad, pad + fence);
}
