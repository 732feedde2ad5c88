/**
 * The page's links and images: absolute http(s) URLs, deduplicated, those inside the main content
 * first. Images resolve lazy-loading conventions (`data-src`, `data-lazy-src`, `srcset`, `<picture>`).
 */
import type { Element, ParentNode } from 'domhandler';
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

/** The page's links and images, main content first (each group in document order), deduplicated. */
export function collectAssets(
  elements: readonly Element[],
  inMain: (el: Element) => boolean,
  urls: UrlResolver,
): { links: PageLink[]; images: PageImage[]; contacts?: { emails: string[]; phones: string[] } } {
  const main: Element[] = [];
  const rest: Element[] = [];
  for (const el of elements) (inMain(el) ? main : rest).push(el);
  const links: PageLink[] = [];
  const images: PageImage[] = [];
  const seenLinks = new Set<string>();
  const seenImages = new Set<string>();
  const emails = new Set<string>();
  const phones = new Set<string>();
  for (const el of [...main, ...rest]) {
    if (el.name === 'a') {
      addLink(el, urls, links, seenLinks);
      addContact(el.attribs.href, emails, phones);
    } else addImage(el, urls, images, seenImages);
  }
  const contacts = emails.size || phones.size ? { emails: [...emails], phones: [...phones] } : undefined;
  return { links, images, ...(contacts ? { contacts } : {}) };
}

/** A `mailto:` or `tel:` link's address (what an agent run may fill contact fields from). */
function addContact(href: string | undefined, emails: Set<string>, phones: Set<string>): void {
  const match = href ? /^\s*(mailto|tel):([^?#]+)/i.exec(href) : null;
  if (!match || emails.size + phones.size >= MAX_ITEMS) return;
  let value: string;
  try {
    value = decodeURIComponent(match[2]!).trim();
  } catch {
    return;
  }
  if (match[1]!.toLowerCase() === 'mailto') {
    for (const address of value.split(','))
      if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address.trim())) emails.add(address.trim().toLowerCase());
  } else if (value.replace(/\D/g, '').length >= 7) phones.add(value);
}

function addLink(a: Element, urls: UrlResolver, links: PageLink[], seen: Set<string>): void {
  if (links.length >= MAX_ITEMS) return;
  const url = urls.linkTarget(a.attribs.href);
  if (!url) return;
  const key = url.split('#')[0] ?? url;
  if (seen.has(key)) return;
  seen.add(key);
  links.push({ url, text: linkText(a) });
}

function addImage(img: Element, urls: UrlResolver, images: PageImage[], seen: Set<string>): void {
  if (images.length >= MAX_ITEMS || isTracker(img)) return;
  const url = imageSource(img, urls);
  if (!url || seen.has(url)) return;
  seen.add(url);
  images.push({ url, alt: squash(img.attribs.alt ?? '') });
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
