/**
 * Small helpers over the domhandler tree that htmlparser2 builds: element tests, attributes, the
 * class/id "signature" the classifiers match, and whitespace normalisation shared by the extractor.
 */
import { type AnyNode, type ChildNode, type Element, type ParentNode, isTag, isText } from 'domhandler';

export { isTag, isText };

/** The heading elements, `h1` to `h6`. */
export const HEADING_TAGS: readonly string[] = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

/** Elements whose content is laid out as blocks (everything else is treated as inline). */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  ...HEADING_TAGS,
  'header',
  'hgroup',
  'hr',
  'html',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'caption',
  'listing',
  'xmp',
  'plaintext',
  'noscript',
]);

/** The lower-cased value of an attribute, or '' when absent. */
export function attr(el: Element, name: string): string {
  return el.attribs[name] ?? '';
}

/** `class` and `id` joined and lower-cased: what the boilerplate and section patterns match against. */
export function signature(el: Element): string {
  const cls = el.attribs.class;
  const id = el.attribs.id;
  if (cls && id) return `${cls} ${id}`.toLowerCase();
  return cls ? cls.toLowerCase() : id ? id.toLowerCase() : '';
}

/** True when `el` is one of `tags`. */
export function isOneOf(node: AnyNode, tags: Set<string>): node is Element {
  return isTag(node) && tags.has(node.name);
}

/** The nearest ancestor element (or the node itself) matching `test`, below `stop` when given. */
export function closest(node: AnyNode, test: (el: Element) => boolean): Element | null {
  let cur: ParentNode | null = isTag(node) ? node : node.parent;
  while (cur && isTag(cur)) {
    if (test(cur)) return cur;
    cur = cur.parent;
  }
  return null;
}

/** True when `el` has a descendant element matching `test` (depth-first, stops at the first hit). */
export function hasDescendant(el: ParentNode, test: (el: Element) => boolean): boolean {
  for (const child of el.children) {
    if (isTag(child) && (test(child) || hasDescendant(child, test))) return true;
  }
  return false;
}

/** The raw text of a subtree (no whitespace normalisation). */
export function rawText(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node) && node.type !== 'root') return '';
  let out = '';
  for (const child of (node as ParentNode).children) {
    if (isText(child)) out += child.data;
    else if (isTag(child)) out += child.name === 'br' ? '\n' : rawText(child);
  }
  return out;
}

/** Collapses runs of whitespace (including non-breaking spaces) to one space and trims. */
export function squash(text: string): string {
  return text.replace(/[\s\u00a0\u200b\ufeff]+/g, ' ').trim();
}

/** Detaches a node from its parent (domhandler keeps sibling pointers, so fix those too). */
export function removeNode(node: ChildNode): void {
  const parent = node.parent;
  if (!parent) return;
  const idx = parent.children.indexOf(node);
  if (idx >= 0) parent.children.splice(idx, 1);
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = node.prev = node.next = null;
}
