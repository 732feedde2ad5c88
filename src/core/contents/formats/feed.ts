/**
 * RSS 2.0, RSS 1.0 (RDF) and Atom feeds → Page: the feed's title, then per item (in the feed's order,
 * which is newest first by convention) a heading, a summary paragraph and its link with its date.
 */
import type { AnyNode, Element } from 'domhandler';
import { textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { toIsoDate } from '../../text/dates.js';
import type { Block, Page, PageLink } from '../page.js';
import {
  absoluteUrl,
  block,
  escapeHtml,
  escapeMarkdown,
  heading,
  makePage,
  paragraph,
  titleFromUrl,
} from './blocks.js';

const MAX_ITEMS = 500;
const MAX_SUMMARY = 1000;

interface Item {
  title: string;
  link: string | null;
  summary: string;
  date: string | null;
  author: string;
}

const tags = (nodes: AnyNode[]): Element[] => nodes.filter((n): n is Element => n.type === 'tag');

function child(el: Element | undefined, ...names: string[]): Element | undefined {
  return el ? tags(el.children).find((c) => names.includes(c.name.toLowerCase())) : undefined;
}

function childText(el: Element | undefined, ...names: string[]): string {
  for (const name of names) {
    const found = child(el, name);
    if (found) {
      const value = contentText(found);
      if (value) return value;
    }
  }
  return '';
}

/** Text of an element whose content may be escaped HTML (RSS description, Atom type="html"/"xhtml"). */
function contentText(el: Element): string {
  const raw = el.attribs.type === 'xhtml' ? visibleText(el.children) : textContent(el);
  const text = /[<&]/.test(raw) ? visibleText(parseDocument(raw).children) : raw;
  return text.replace(/\s+/g, ' ').trim();
}

const BLOCK_TAG = /^(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|blockquote|pre|section|article|figure|figcaption)$/;

/** Text of HTML nodes without scripts and styles; block elements are separated by a space. */
function visibleText(nodes: AnyNode[]): string {
  return nodes
    .map((node) => {
      if (node.type === 'text') return node.data;
      if (node.type !== 'tag' && node.type !== 'cdata') return '';
      const inner = visibleText(node.children);
      return node.type === 'tag' && BLOCK_TAG.test(node.name) ? ` ${inner} ` : inner;
    })
    .join('');
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1)}…`;
}

function itemLink(el: Element, base: string): string | null {
  const atom = tags(el.children).filter((c) => c.name === 'link' && c.attribs.href);
  const alternate = atom.find((l) => !l.attribs.rel || l.attribs.rel === 'alternate') ?? atom[0];
  const guid = child(el, 'guid');
  const guidLink = guid && guid.attribs.isPermaLink !== 'false' ? textContent(guid).trim() : '';
  const raw = alternate?.attribs.href ?? (childText(el, 'link') || el.attribs['rdf:about'] || guidLink);
  return absoluteUrl(raw, base);
}

function readItem(el: Element, base: string): Item {
  const author = child(el, 'author');
  return {
    title: childText(el, 'title') || '(untitled)',
    link: itemLink(el, base),
    summary: clip(childText(el, 'description', 'summary', 'content:encoded', 'content'), MAX_SUMMARY),
    date: toIsoDate(childText(el, 'pubdate', 'published', 'dc:date', 'updated', 'a10:updated')),
    author: (author && (childText(author, 'name') || contentText(author))) || childText(el, 'dc:creator'),
  };
}

function itemBlocks(item: Item): Block[] {
  const blocks = [heading(item.title, 2)];
  if (item.summary) blocks.push(paragraph(item.summary));
  if (item.link) {
    const date = item.date ? ` · ${item.date.slice(0, 10)}` : '';
    const url = escapeHtml(item.link);
    blocks.push(block('paragraph', `<${item.link}>${escapeMarkdown(date)}`, `${item.link}${date}`, `<p><a href="${url}">${url}</a>${escapeHtml(date)}</p>`)); // prettier-ignore
  }
  return blocks;
}

/** Reads an RSS, RDF or Atom feed; returns null when the XML is not a feed. */
export function parseFeed(text: string, url: string): Page | null {
  const doc = parseDocument(text, { xmlMode: true });
  const root = tags(doc.children)[0];
  const rootName = root?.name.toLowerCase() ?? '';
  if (!root || !['rss', 'rdf:rdf', 'feed'].includes(rootName)) return null;
  const channel = rootName === 'feed' ? root : child(root, 'channel');
  const itemParent = rootName === 'rss' ? channel : root;
  const items = tags(itemParent?.children ?? [])
    .filter((el) => el.name === 'item' || el.name === 'entry')
    .slice(0, MAX_ITEMS)
    .map((el) => readItem(el, url));
  const title = childText(channel, 'title') || titleFromUrl(url);
  const description = childText(channel, 'description', 'subtitle');
  const dates = items.map((i) => i.date).filter((d): d is string => d !== null);
  const feedDate = toIsoDate(childText(channel, 'updated', 'lastbuilddate', 'pubdate', 'dc:date'));
  const links: PageLink[] = items.flatMap((i) => (i.link ? [{ url: i.link, text: i.title }] : []));
  const image = absoluteUrl(childText(child(channel, 'image'), 'url') || childText(channel, 'logo', 'icon'), url);
  const language = childText(channel, 'language', 'dc:language') || root.attribs['xml:lang'];
  const page = makePage({
    url,
    kind: 'feed',
    title,
    author: childText(child(channel, 'author'), 'name') || childText(channel, 'managingeditor', 'dc:creator') || null,
    publishedDate: dates.sort().at(-1) ?? feedDate,
    blocks: [heading(title, 1), ...(description ? [paragraph(description)] : []), ...items.flatMap(itemBlocks)],
    links: links.filter((l, i) => links.findIndex((o) => o.url === l.url) === i),
  });
  if (image) page.image = image;
  if (language) page.language = language;
  if (description) page.description = description;
  return page;
}
