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
/** Class names that hide an element at every width... */
const HIDDEN_CLASS =
  /(?:^|\s)(?:hidden|hide|d-none|is-hidden|sr-only|visually-hidden|visuallyhidden|screen-reader-text|screenreader|element-invisible|offscreen|u-hidden)(?:\s|$)/;
/** ...unless a responsive class shows it again on a desktop-sized screen (Tailwind, Bootstrap)... */
const SHOWN_ON_DESKTOP =
  /(?:^|\s)(?:(?:md|lg|xl):(?:block|flex|grid|inline|inline-block|inline-flex|table|contents)|d-(?:md|lg|xl)-(?:block|flex|grid|inline|inline-block|inline-flex|table))(?:\s|$)/;
/** ...and class names that hide it only on desktop-sized screens (the mobile copy of a menu or text). */
const HIDDEN_ON_DESKTOP =
  /(?:^|\s)(?:(?:md|lg):hidden|d-(?:md|lg)-none|hidden-(?:md|lg)|visible-xs|visible-sm|hide-for-large|show-for-small-only|hidden-desktop|desktop-hidden|hide-desktop|mobile-only|only-mobile)(?:\s|$)/;
const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
const MAX_DEPTH = 1000;

/** What the clean pass saw that the JS-shell test and the page-type hint need. */
export interface CleanStats {
  scripts: number;
  noscriptText: string;
  /** Schema.org `@type` values of the JSON-LD islands (read with a regex, not parsed). */
  ldTypes: string[];
  /** The `<a>` and `<img>` elements left, in document order (for the page's links and images). */
  assets: Element[];
}

interface Deferred {
  el: Element;
  chars: number;
  noscript: boolean;
  /** A hidden schema.org `itemscope` island: a copy of the page's metadata (and body) for crawlers. */
  microdata: boolean;
}

interface Walk extends CleanStats {
  ldTypes: string[];
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
  const walk: Walk = {
    scripts: 0,
    noscriptText: '',
    ldTypes: [],
    assets: [],
    visibleChars: 0,
    deferred: [],
    inDeferred: false,
  };
  cleanChildren(root, walk, 0);
  const noscriptChars = walk.deferred.reduce((n, d) => n + (d.noscript ? d.chars : 0), 0);
  for (const d of walk.deferred) {
    const share = d.microdata ? 1 : 0.3;
    const keep = d.noscript ? noscriptChars > walk.visibleChars : d.chars > share * walk.visibleChars;
    if (!keep) removeNode(d.el);
  }
  return { scripts: walk.scripts, noscriptText: walk.noscriptText, ldTypes: walk.ldTypes, assets: walk.assets };
}

/** Every hiding class above contains one of these: a cheap test that rules out most class lists. */
const MAYBE_HIDDEN = /hid|none|only|invisible|offscreen|screen|visible/i;

function hiddenClass(cls: string): boolean {
  if (!MAYBE_HIDDEN.test(cls)) return false;
  // the page as a desktop browser shows it, as the benchmark annotators and most readers saw it
  const lower = cls.toLowerCase();
  return HIDDEN_ON_DESKTOP.test(lower) || (HIDDEN_CLASS.test(lower) && !SHOWN_ON_DESKTOP.test(lower));
}

function isHidden(el: Element): boolean {
  const a = el.attribs;
  if ('hidden' in a && el.name !== 'details') return true;
  if (a['aria-hidden'] === 'true' && el.name !== 'body' && el.name !== 'html') return true;
  if (a.style && HIDDEN_STYLE.test(a.style)) return true;
  if (a.class && hiddenClass(a.class)) return true;
  if (a.type === 'hidden') return true;
  return el.name === 'dialog' && !('open' in a);
}

/** Inputs of the forms that are page furniture: search, log-in, sign-up, newsletter, reply boxes. */
const FURNITURE_INPUT = /^(?:search|email|password|tel)$/i;

/** Such forms, for the section classifier (a weak set: the marks go with the document). */
export const furnitureForms = new WeakSet<Element>();

function markForm(input: Element): void {
  for (let p = input.parent; p && isTag(p); p = p.parent) {
    if (p.name === 'form') {
      furnitureForms.add(p);
      return;
    }
  }
}

/** 'drop', 'keep', or 'defer' (keep for now, decide once the whole page has been seen). */
function verdict(el: Element, walk: Walk): 'drop' | 'keep' | 'defer' {
  const name = el.name;
  if (name === 'script') {
    const type = el.attribs.type ?? '';
    if (type === 'application/ld+json') readLdTypes(el, walk.ldTypes);
    else if (!type.includes('json')) walk.scripts++;
    return 'drop';
  }
  if (name === 'textarea' || (name === 'input' && FURNITURE_INPUT.test(el.attribs.type ?? ''))) markForm(el);
  if (DROP_TAGS.has(name) || name.includes(':')) return 'drop';
  const noscript = name === 'noscript';
  if (!noscript && !isHidden(el)) return 'keep';
  if (!noscript && REACT_STREAMED.test(el.attribs.id ?? '')) return 'keep';
  const text = squash(textOf(el));
  if (noscript && walk.noscriptText.length < 2000) walk.noscriptText += ' ' + text.slice(0, 2000);
  if (text.length < BIG_SUBTREE || walk.inDeferred) return 'drop';
  walk.deferred.push({ el, chars: text.length, noscript, microdata: 'itemscope' in el.attribs });
  return 'defer';
}

const LD_TYPE = /"@type"\s*:\s*(?:\[\s*)?"([A-Za-z]+)"/g;

function readLdTypes(script: Element, out: string[]): void {
  const text = textOf(script);
  for (const m of text.matchAll(LD_TYPE)) if (out.length < 50) out.push(m[1]!);
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
      if (child.name === 'a' || child.name === 'img') walk.assets.push(child);
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
