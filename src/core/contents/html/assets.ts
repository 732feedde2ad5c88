/**
 * The page's links and images: absolute http(s) URLs, deduplicated, those inside the main content
 * first. Images resolve lazy-loading conventions (`data-src`, `data-lazy-src`, `srcset`, `<picture>`).
 */
import type { AnyNode, Element, ParentNode } from 'domhandler';
import type { PageImage, PageLink } from '../page.js';
import { isTag, rawText, squash } from './dom.js';
import type { UrlResolver } from './urls.js';

const LAZY_ATTRS = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src'];
const SRCSET_ATTRS = ['srcset', 'data-srcset', 'data-lazy-srcset'];
const PLACEHOLDER =
  /^data:|(?:^|[/_.-])(?:blank|spacer|placeholder|pixel|transparent|lazy|loader|grey|gray)[._-]?(?:gif|png|svg|jpg)?(?:$|[?#])/i;
const MAX_ITEMS = 1000;

/** The largest candidate of a `srcset` value. */
function largestFromSrcset(srcset: string): string | null {
  let best: string | null = null;
  let bestSize = -1;
  for (const part of srcset.split(/,\s+/)) {
    const [url, descriptor = '1x'] = part.trim().split(/\s+/);
    if (!url) continue;
    const size = Number.parseFloat(descriptor) * (descriptor.endsWith('w') ? 1 : 1000);
    if (size > bestSize) {
      best = url;
      bestSize = Number.isFinite(size) ? size : 0;
    }
  }
  return best;
}

function rawImageSource(img: Element): string | null {
  const a = img.attribs;
  for (const name of LAZY_ATTRS) {
    const v = a[name];
    if (v && !PLACEHOLDER.test(v)) return v;
  }
  if (a.src && !PLACEHOLDER.test(a.src)) return a.src;
  for (const name of SRCSET_ATTRS) {
    const v = a[name] ? largestFromSrcset(a[name]) : null;
    if (v) return v;
  }
  const picture = img.parent;
  if (picture && isTag(picture) && picture.name === 'picture') {
    for (const c of picture.children) {
      if (isTag(c) && c.name === 'source' && c.attribs.srcset) return largestFromSrcset(c.attribs.srcset);
    }
  }
  return null;
}

/** The absolute URL an `<img>` shows (after lazy-loading), or null. */
export function imageSource(img: Element, urls: UrlResolver): string | null {
  const raw = rawImageSource(img);
  return raw ? urls.resolve(raw) : null;
}

function isTracker(img: Element): boolean {
  const { width, height } = img.attribs;
  return (width === '1' || width === '0') && (height === '1' || height === '0');
}

/** Collects links and images from subtrees, keeping first-seen order and dropping duplicates. */
export class AssetCollector {
  readonly links: PageLink[] = [];
  readonly images: PageImage[] = [];
  private readonly seenLinks = new Set<string>();
  private readonly seenImages = new Set<string>();

  constructor(private readonly urls: UrlResolver) {}

  /** Adds the links and images found in `nodes` (and their descendants). */
  add(nodes: readonly AnyNode[]): void {
    for (const node of nodes) if (isTag(node)) this.visit(node);
  }

  private visit(el: Element): void {
    if (el.name === 'a') this.addLink(el);
    else if (el.name === 'img') this.addImage(el);
    for (const child of el.children) if (isTag(child)) this.visit(child);
  }

  private addLink(a: Element): void {
    if (this.links.length >= MAX_ITEMS) return;
    const url = this.urls.resolve(a.attribs.href);
    if (!url || this.urls.isSamePage(url)) return;
    const key = url.split('#')[0] ?? url;
    if (this.seenLinks.has(key)) return;
    this.seenLinks.add(key);
    this.links.push({ url, text: linkText(a) });
  }

  private addImage(img: Element): void {
    if (this.images.length >= MAX_ITEMS || isTracker(img)) return;
    const url = imageSource(img, this.urls);
    if (!url || this.seenImages.has(url)) return;
    this.seenImages.add(url);
    this.images.push({ url, alt: squash(img.attribs.alt ?? '') });
  }
}

function linkText(a: Element): string {
  const text = squash(rawText(a));
  if (text) return text.slice(0, 300);
  const label = a.attribs['aria-label'] ?? a.attribs.title;
  if (label) return squash(label).slice(0, 300);
  const img = findImg(a);
  return img ? squash(img.attribs.alt ?? '') : '';
}

function findImg(el: ParentNode): Element | null {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    if (c.name === 'img') return c;
    const hit = findImg(c);
    if (hit) return hit;
  }
  return null;
}
