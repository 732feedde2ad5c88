/**
 * First pass over the parsed page: drops what is never content (scripts, styles, comments, embedded
 * media, form controls, hidden elements) and strips event-handler and style attributes, so the later
 * passes and every block's `html` see a clean tree. Also counts what the JS-shell test needs.
 */
import { type ChildNode, type Element, type ParentNode, isTag } from 'domhandler';
import { removeNode, squash } from './dom.js';

const DROP_TAGS = new Set([
  'script',
  'style',
  'template',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  'source',
  'track',
  'link',
  'meta',
  'base',
  'input',
  'select',
  'option',
  'optgroup',
  'textarea',
  'button',
  'datalist',
  'progress',
  'meter',
  'annotation',
  'annotation-xml',
  'map',
  'param',
  'head',
  'title',
]);

/** Class names that only screen readers or closed widgets see. */
const HIDDEN_CLASS =
  /(?:^|\s)(?:hidden|hide|d-none|is-hidden|sr-only|visually-hidden|visuallyhidden|screen-reader-text|screenreader|element-invisible|offscreen|u-hidden)(?:\s|$)/;
const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
const MAX_DEPTH = 1000;

/** What the clean pass saw that the JS-shell test needs. */
export interface CleanStats {
  scripts: number;
  noscriptText: string;
}

interface Deferred {
  el: Element;
  chars: number;
  noscript: boolean;
}

interface Walk extends CleanStats {
  /** Characters of text outside deferred subtrees. */
  visibleChars: number;
  /** Subtrees whose fate depends on the rest of the page: big `<noscript>`s and big hidden elements. */
  deferred: Deferred[];
  inDeferred: boolean;
}

/** Below this many characters a hidden element or a `<noscript>` is dropped without a second look. */
const BIG_SUBTREE = 300;
/** React 18 streaming SSR parks server-rendered content in `<div hidden id="S:0">` until hydration. */
const REACT_STREAMED = /^S:\d+$/;

/**
 * Removes non-content nodes in place and returns counts for the JS-shell heuristics. Big hidden or
 * `<noscript>` subtrees are kept when they carry the page: a no-JS crawler view (Discourse), content
 * a script reveals (`display:none` lock-down wrappers), or React's streamed SSR chunks.
 */
export function cleanTree(root: ParentNode): CleanStats {
  const walk: Walk = { scripts: 0, noscriptText: '', visibleChars: 0, deferred: [], inDeferred: false };
  cleanChildren(root, walk, 0);
  const noscriptChars = walk.deferred.reduce((n, d) => n + (d.noscript ? d.chars : 0), 0);
  for (const d of walk.deferred) {
    const keep = d.noscript ? noscriptChars > walk.visibleChars : d.chars > 0.3 * walk.visibleChars;
    if (!keep) removeNode(d.el);
  }
  return { scripts: walk.scripts, noscriptText: walk.noscriptText };
}

function isHidden(el: Element): boolean {
  const a = el.attribs;
  if ('hidden' in a && el.name !== 'details') return true;
  if (a['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') return true;
  if (a.style && HIDDEN_STYLE.test(a.style)) return true;
  if (a.class && HIDDEN_CLASS.test(a.class.toLowerCase())) return true;
  if (a.type === 'hidden') return true;
  return el.name === 'dialog' && !('open' in a);
}

/** 'drop', 'keep', or 'defer' (keep for now, decide once the whole page has been seen). */
function verdict(el: Element, walk: Walk): 'drop' | 'keep' | 'defer' {
  const name = el.name;
  if (name === 'script') {
    const type = el.attribs.type ?? '';
    if (!type.includes('json')) walk.scripts++;
    return 'drop';
  }
  if (DROP_TAGS.has(name) || name.includes(':')) return 'drop';
  const noscript = name === 'noscript';
  if (!noscript && !isHidden(el)) return 'keep';
  if (!noscript && REACT_STREAMED.test(el.attribs.id ?? '')) return 'keep';
  const text = squash(textOf(el));
  if (noscript && walk.noscriptText.length < 2000) walk.noscriptText += ' ' + text.slice(0, 2000);
  if (text.length < BIG_SUBTREE || walk.inDeferred) return 'drop';
  walk.deferred.push({ el, chars: text.length, noscript });
  return 'defer';
}

function stripAttributes(el: Element): void {
  const a = el.attribs;
  for (const key in a) {
    if (key.startsWith('on') || key === 'style') delete a[key];
  }
}

function cleanChildren(parent: ParentNode, walk: Walk, depth: number): void {
  const kept: ChildNode[] = [];
  for (const child of parent.children) {
    if (child.type === 'text') {
      kept.push(child);
      if (!walk.inDeferred) walk.visibleChars += (child as { data: string }).data.trim().length;
    } else if (isTag(child)) {
      const v = verdict(child, walk);
      if (v === 'drop') continue;
      stripAttributes(child);
      if (v === 'defer') walk.inDeferred = true;
      if (depth < MAX_DEPTH) cleanChildren(child, walk, depth + 1);
      else child.children = [];
      if (v === 'defer') walk.inDeferred = false;
      kept.push(child);
    }
    // comments, processing instructions, doctype and CDATA are dropped
  }
  if (kept.length !== parent.children.length) {
    for (let i = 0; i < kept.length; i++) {
      const node = kept[i]!;
      node.prev = kept[i - 1] ?? null;
      node.next = kept[i + 1] ?? null;
    }
    parent.children = kept;
  }
}

function textOf(el: ParentNode): string {
  let out = '';
  for (const child of el.children) {
    if (child.type === 'text') out += (child as { data: string }).data;
    else if (isTag(child) && child.name !== 'script' && child.name !== 'style') out += textOf(child);
  }
  return out;
}
