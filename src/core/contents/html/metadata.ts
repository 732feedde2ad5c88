/**
 * Page metadata from an HTML document: title, author, published date, image, favicon, language and
 * description, read from meta tags, JSON-LD, microdata, bylines, `<time>` and the URL, in that order.
 */
import type { AnyNode, Document, Element, Text } from 'domhandler';
import { findAll, textContent } from 'domutils';
import { dateFromUrl, toIsoDate } from '../../text/dates.js';
import { absoluteUrl, titleFromUrl } from '../formats/blocks.js';
import { readStructuredData } from '../formats/structured-data.js';
import type { PageEvidence, PageMetadata } from '../page.js';

type Json = Record<string, unknown>;

interface Collected {
  meta: Map<string, string[]>;
  jsonLd: Json[];
  title: string;
  h1: string;
  links: Element[];
  times: Element[];
  itemprops: Element[];
  /** Microdata items (`itemscope` with an `itemtype`). */
  items: Element[];
  bylines: Element[];
  byText: string[];
  dateTexts: { iso: string; marked: boolean; afterH1: boolean }[];
  base: string;
  lang: string;
}

const ARTICLE_TYPE = /article|posting|report|review|recipe|howto|question|blog|creativework|episode|videoobject/i;
const BYLINE_CLASS = /(?:^|[\s_-])(?:authors?|byline|by-line|writer|creator|username)(?:$|[\s_-])/i;
const NOT_BYLINE = /comment|avatar|bio|share|social|follow|related|more-from|image|photo|label/i;
const SEPARATORS = /( +(?:\||-|–|—|::|·|•|»|«|\/|:) +)/;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

function attr(el: Element, name: string): string {
  return el.attribs[name] ?? '';
}

function text(node: AnyNode | AnyNode[]): string {
  return clean(textContent(node));
}

// SVG images carry <title> elements of their own.
const inSvg = (el: Element) => /^(?:svg|symbol|g)$/.test((el.parent as Element | null)?.name ?? '');

function visitElement(el: Element, c: Collected, url: string): void {
  const name = el.name;
  if (name === 'meta') {
    const key = (
      attr(el, 'property') ||
      attr(el, 'name') ||
      attr(el, 'itemprop') ||
      attr(el, 'http-equiv')
    ).toLowerCase();
    const content = clean(attr(el, 'content') || attr(el, 'datetime'));
    if (key && content) c.meta.set(key, [...(c.meta.get(key) ?? []), content]);
  } else if (name === 'script' && /ld\+json/i.test(attr(el, 'type'))) c.jsonLd.push(...parseJsonLd(textContent(el)));
  else if (name === 'title' && !c.title && !inSvg(el)) c.title = text(el);
  else if (name === 'h1' && !c.h1) c.h1 = text(el);
  else if (name === 'link') c.links.push(el);
  else if (name === 'time') c.times.push(el);
  else if (name === 'base' && attr(el, 'href')) c.base = absoluteUrl(attr(el, 'href'), url) ?? url;
  else if (name === 'html') c.lang = attr(el, 'lang') || attr(el, 'xml:lang');
  if (el.attribs.itemprop) c.itemprops.push(el);
  if ('itemscope' in el.attribs && el.attribs.itemtype) c.items.push(el);
  if (BYLINE_CLASS.test(attr(el, 'class')) || attr(el, 'rel') === 'author') c.bylines.push(el);
}

// A date as pages show it: a year and a month name or numeric day/month, and no sign of an update.
const SHOWN_DATE = /\b(?:19[89]\d|20[0-4]\d)\b/;
const DATE_CLASS = /date|time|publish|posted|meta|byline/i;

/** Records a text node that reads as a date, whether an element around it says "date" and whether it follows the h1. */
function dateText(node: Text, c: Collected): void {
  const own = node.data.trim();
  if (/updated|modified|edited|©|copyright/i.test(own) || !/\p{L}{3}|\d{1,2}[/.-]\d{1,2}/u.test(own)) return;
  const iso = toIsoDate(own.replace(/^[^\p{L}\d]*(?:published|posted|date|on)?:?\s*/iu, ''));
  if (!iso) return;
  let marked = false;
  for (let p = node.parent, depth = 0; p && p.type === 'tag' && depth < 3; p = p.parent, depth++) {
    if (DATE_CLASS.test(`${attr(p, 'class')} ${attr(p, 'itemprop')} ${attr(p, 'id')}`)) marked = true;
  }
  c.dateTexts.push({ iso, marked, afterH1: c.h1 !== '' });
}

/** "By Jane Doe" written out: the text after a lone "By" (in the next element), or the whole short line. */
function byline(node: Text): string | null {
  const own = node.data.trim();
  if (/^(?:written |posted )?by:?$/i.test(own)) {
    const lone = node.parent && node.parent.children.filter((n) => text(n)).length === 1;
    let next: AnyNode | null = lone ? node.parent : node;
    while (next && (next = next.next) && !text(next));
    return next ? text(next) : null;
  }
  return own.length < 60 && /^by\s+\p{Lu}/u.test(own) ? own : null;
}

// One walk over the document: elements of interest by kind, and written-out bylines.
function collect(doc: Document, url: string): Collected {
  const c: Collected = {
    meta: new Map(),
    jsonLd: [],
    title: '',
    h1: '',
    links: [],
    times: [],
    itemprops: [],
    items: [],
    bylines: [],
    byText: [],
    dateTexts: [],
    base: url,
    lang: '',
  };
  const stack: AnyNode[] = [...doc.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') {
      if (c.byText.length < 5 && /^\s*(?:written |posted )?by\b/i.test(node.data)) {
        const found = byline(node);
        if (found) c.byText.push(found);
      }
      if (c.dateTexts.length < 10 && node.data.length < 80 && SHOWN_DATE.test(node.data)) dateText(node, c);
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    visitElement(node, c, url);
    if (node.type === 'tag') for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return c;
}

function parseJsonLd(source: string): Json[] {
  let data: unknown;
  try {
    data = JSON.parse(source.replace(/^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$/g, ''));
  } catch {
    return [];
  }
  const out: Json[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((v) => visit(v, depth + 1));
    const node = value as Json;
    out.push(node);
    visit(node['@graph'], depth + 1);
    visit(node.mainEntity, depth + 1);
  };
  visit(data, 0);
  return out;
}

const typeOf = (node: Json) => [node['@type']].flat().join(' ');

/** JSON-LD nodes, article-like first, then web pages, then the rest. */
function rankedNodes(nodes: Json[]): Json[] {
  const rank = (n: Json) => (ARTICLE_TYPE.test(typeOf(n)) ? 0 : /webpage/i.test(typeOf(n)) ? 1 : 2);
  return [...nodes].sort((a, b) => rank(a) - rank(b));
}

function ldString(value: unknown): string {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return ldString(value[0]);
  if (value && typeof value === 'object') return ldString((value as Json)['@value'] ?? (value as Json).url);
  return '';
}

function ldField(nodes: Json[], ...keys: string[]): string {
  for (const node of nodes) for (const key of keys) if (ldString(node[key])) return ldString(node[key]);
  return '';
}

function ldAuthor(nodes: Json[], all: Json[]): string {
  const byId = new Map(all.filter((n) => typeof n['@id'] === 'string').map((n) => [n['@id'] as string, n]));
  const names = (value: unknown): string[] => {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.flatMap(names);
    if (!value || typeof value !== 'object') return [];
    const node = value as Json;
    const target = typeof node.name === 'string' ? node : byId.get(node['@id'] as string);
    return typeof target?.name === 'string' ? [target.name] : [];
  };
  for (const node of nodes) {
    const found = names(node.author ?? node.creator)
      .map(cleanAuthor)
      .filter(Boolean);
    if (found.length > 0) return [...new Set(found)].join(', ');
  }
  return '';
}

function first(meta: Map<string, string[]>, ...keys: string[]): string {
  for (const key of keys) {
    const value = meta.get(key)?.[0];
    if (value) return value;
  }
  return '';
}

/** A person's name, or '' when the value is a URL, a handle list, a sentence or empty. */
function cleanAuthor(raw: string): string {
  const s = clean(raw)
    .replace(/^(?:(?:posted|written|published|reviewed|edited|authored)\s+)?by[:\s]+/i, '')
    .replace(/(?:\s*[|•·,]\s*|\s+)(?:updated|published|posted|on)\b.*$/i, '')
    .replace(/(?:\s*[|•·,]\s*|\s+)(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b.*$/i, '')
    .replace(/^[\s,|·~-]+|[\s,|·~-]+$/g, '');
  const words = s.split(' ');
  if (!s || s.length > 80 || words.length > 8 || !/\p{L}{2}/u.test(s)) return '';
  if (/https?:|www\.|\.com\b|[{}<>=/!?*]|\p{Ll}{3}\.$/iu.test(s)) return '';
  // Several words: a name is mostly capitalised words ("Get in touch" is not a name).
  const capitalised = words.filter((w) => /^[\p{Lu}\p{Lo}]/u.test(w)).length;
  return words.length === 1 || capitalised * 2 > words.length ? s : '';
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).hostname : '';
}

function siteNames(c: Collected, url: string): string[] {
  const host = hostOf(url).replace(/^www\./, '');
  const names = [
    first(c.meta, 'og:site_name', 'application-name', 'apple-mobile-web-app-title'),
    host,
    host.split('.')[0] ?? '',
  ];
  const site = c.jsonLd.find((n) => /website|organization/i.test(typeOf(n)));
  if (site && typeof site.name === 'string') names.push(site.name);
  return names.map(norm).filter((n) => n.length > 1);
}

/** Drops a " | Site" / "Site - " part when it names the site; failing that, keeps the part equal to the h1. */
function trimSiteName(title: string, c: Collected, url: string): string {
  const pieces = title.split(SEPARATORS); // [part, separator, part, ...]
  if (pieces.length < 3) return title;
  const sites = siteNames(c, url);
  const isSite = (part: string) =>
    sites.some(
      (s) =>
        norm(part) === s ||
        (s.length > 3 && norm(part).includes(s)) ||
        (s.length > 2 && norm(part).startsWith(s) && part.length < 30),
    );
  if (isSite(pieces[pieces.length - 1]!)) return pieces.slice(0, -2).join('');
  if (isSite(pieces[0]!)) return pieces.slice(2).join('');
  const h1 = norm(c.h1);
  return pieces.find((part, i) => i % 2 === 0 && h1 && norm(part) === h1) ?? title;
}

function readTitle(c: Collected, nodes: Json[], url: string): string {
  const candidates = [
    first(c.meta, 'og:title', 'twitter:title'),
    ldField(
      nodes.filter((n) => ARTICLE_TYPE.test(typeOf(n))),
      'headline',
    ),
    c.title,
    c.h1,
  ];
  const title = candidates.map(clean).find((t) => t.length > 0);
  const h1 = norm(c.h1);
  // The h1 is the title as the page shows it; prefer it when a metadata title contains it (SEO suffixes).
  if (h1.length > 2 && candidates.some((t) => t !== c.h1 && norm(t).includes(h1))) return c.h1;
  return title ? trimSiteName(title, c, url) : titleFromUrl(url);
}

function itempropValue(el: Element): string {
  return clean(attr(el, 'content') || attr(el, 'datetime') || attr(el, 'href') || textContent(el));
}

// Placeholders that CMSs put where a name should be.
const NOT_A_NAME =
  /^(?:name|admin|administrator|author|authors|user|guest|unknown|anonymous|staff|editor|default|null|undefined)$/i;

function readAuthor(c: Collected, nodes: Json[], url: string): string | null {
  const fromMeta = [
    first(
      c.meta,
      'author',
      'article:author',
      'og:article:author',
      'parsely-author',
      'sailthru.author',
      'dc.creator',
      'dcterms.creator',
      'citation_author',
    ),
  ];
  const fromMicrodata = c.itemprops
    .filter((el) => /\b(author|creator)\b/.test(attr(el, 'itemprop')))
    .map((el) => itempropValue(findAll((e) => attr(e, 'itemprop') === 'name', el.children)[0] ?? el));
  const fromBylines = c.bylines.filter((el) => !NOT_BYLINE.test(attr(el, 'class'))).map((el) => text(el));
  const sites = siteNames(c, url);
  let siteAuthor: string | null = null;
  for (const candidate of [...fromMeta, ldAuthor(nodes, c.jsonLd), ...fromMicrodata, ...c.byText, ...fromBylines]) {
    const name = cleanAuthor(candidate).replace(/^([\p{L}'’-]+), ([\p{L}][\p{L}. ]*)$/u, '$2 $1'); // "Last, First"
    if (!name || NOT_A_NAME.test(name)) continue;
    // The publisher's own name is a byline of last resort: a person named further on is better.
    if (sites.includes(norm(name))) siteAuthor ??= name;
    else return name;
  }
  return siteAuthor;
}

function inArticleOrHeader(el: Element): boolean {
  for (let p = el.parent; p && p.type !== 'root'; p = p.parent) {
    if ('name' in p && (p.name === 'article' || p.name === 'header' || p.name === 'main')) return true;
  }
  return false;
}

function readDate(c: Collected, nodes: Json[], url: string): string | null {
  const times = c.times.filter((t) => inArticleOrHeader(t) || 'pubdate' in t.attribs);
  const candidates = [
    first(c.meta, 'article:published_time', 'og:article:published_time', 'og:published_time'),
    ldField(nodes, 'datePublished', 'dateCreated', 'uploadDate'),
    ...c.itemprops.filter((el) => attr(el, 'itemprop') === 'datePublished').map(itempropValue),
    ...times.map((t) => attr(t, 'datetime') || text(t)),
    first(
      c.meta,
      'datepublished',
      'date',
      'dc.date',
      'dc.date.issued',
      'dcterms.date',
      'dcterms.created',
      'dc.date.created',
      'parsely-pub-date',
      'sailthru.date',
      'publish-date',
      'publish_date',
      'pubdate',
      'publication_date',
      'citation_publication_date',
      'citation_date',
      'article.published',
      'date_published',
      'release_date',
      'ms.date',
    ),
  ];
  for (const candidate of candidates) {
    const iso = candidate ? toIsoDate(candidate) : null;
    if (iso) return iso;
  }
  const shown = c.dateTexts.find((d) => d.marked) ?? c.dateTexts.find((d) => d.afterH1);
  return dateFromUrl(url) ?? shown?.iso ?? null;
}

function readImage(c: Collected, nodes: Json[]): string | undefined {
  const link = c.links.find((l) => attr(l, 'rel').toLowerCase() === 'image_src');
  const raw =
    first(c.meta, 'og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src') ||
    ldField(nodes, 'image', 'thumbnailUrl') ||
    (link ? attr(link, 'href') : '');
  return absoluteUrl(raw, c.base) ?? undefined;
}

function iconSize(el: Element): number {
  const sizes = attr(el, 'sizes').toLowerCase();
  if (sizes === 'any' || /svg/.test(attr(el, 'type'))) return 1024;
  const largest = Math.max(0, ...[...sizes.matchAll(/(\d+)x(\d+)/g)].map((m) => Number(m[1])));
  if (largest > 0) return largest;
  return /apple-touch-icon/.test(attr(el, 'rel').toLowerCase()) ? 180 : 16;
}

function readFavicon(c: Collected): string | undefined {
  const icons = c.links.filter((l) =>
    /(?:^|\s)(?:icon|apple-touch-icon(?:-precomposed)?)(?:\s|$)/i.test(attr(l, 'rel')),
  );
  let best: { href: string; size: number } | null = null;
  for (const icon of icons) {
    const href = absoluteUrl(attr(icon, 'href'), c.base);
    const size = iconSize(icon);
    if (href && (!best || size > best.size)) best = { href, size };
  }
  return best?.href ?? absoluteUrl('/favicon.ico', c.base) ?? undefined;
}

function readLanguage(c: Collected): string | undefined {
  const raw = c.lang || first(c.meta, 'content-language', 'og:locale', 'language');
  const tag = raw.split(/[,;]/)[0]!.trim().replace(/_/g, '-');
  return /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/i.test(tag) ? tag : undefined;
}

/** What the search classifiers read: structured data, `og:type`, the `rating` meta tag, scholarly citation tags. */
function readEvidence(c: Collected): PageEvidence {
  const evidence = readStructuredData(c.jsonLd, c.items);
  const ogType = first(c.meta, 'og:type').toLowerCase();
  // `<meta itemprop="rating" content="4.5">` (a review score) shares the key: ratings are words.
  const rating = (c.meta.get('rating') ?? []).find((r) => /^[a-z]/i.test(r))?.toLowerCase();
  if (ogType) evidence.ogType = ogType.slice(0, 60);
  if (rating) evidence.rating = rating.slice(0, 100);
  if ([...c.meta.keys()].some((k) => k.startsWith('citation_'))) {
    const journal = first(c.meta, 'citation_journal_title', 'citation_conference_title', 'citation_publisher');
    const doi = first(c.meta, 'citation_doi').replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:)/i, '');
    evidence.citation = { ...(journal ? { journal } : {}), ...(doi ? { doi } : {}) };
  }
  return evidence;
}

/** Reads a parsed HTML document's metadata; `url` is the page's final URL (resolves relative links). */
export function readHtmlMetadata(doc: Document, url: string): PageMetadata {
  const c = collect(doc, url);
  const nodes = rankedNodes(c.jsonLd);
  const description =
    first(c.meta, 'description', 'og:description', 'twitter:description') || ldField(nodes, 'description');
  const metadata: PageMetadata = {
    title: readTitle(c, nodes, url),
    author: readAuthor(c, nodes, url),
    publishedDate: readDate(c, nodes, url),
  };
  const favicon = readFavicon(c);
  if (favicon) metadata.favicon = favicon;
  const image = readImage(c, nodes);
  const language = readLanguage(c);
  if (image) metadata.image = image;
  if (language) metadata.language = language;
  if (description) metadata.description = description.slice(0, 1000);
  return Object.assign(metadata, readEvidence(c));
}
