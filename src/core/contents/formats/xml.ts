/**
 * Other XML → Page: the text of each element that holds text, one paragraph per element in document
 * order (sitemaps, data feeds, DocBook-like documents); links from URL-valued text and href attributes.
 */
import type { AnyNode, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import type { Block, Page, PageLink } from '../page.js';
import { absoluteUrl, dedupeLinks, linksInText, makePage, paragraph, titleFromUrl } from './blocks.js';

// A document with more text elements than this is data; the rest is left out.
const MAX_BLOCKS = 10_000;

function directText(el: Element): string {
  return el.children
    .map((child) => (child.type === 'text' ? child.data : child.type === 'cdata' ? textOf(child.children) : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

function textOf(nodes: AnyNode[]): string {
  return nodes
    .map((n) => ('data' in n && n.type === 'text' ? n.data : 'children' in n ? textOf(n.children) : ''))
    .join('');
}

/** Reads an XML body that is not a feed. */
export function parseXml(text: string, url: string): Page {
  const doc = parseDocument(text, { xmlMode: true });
  const blocks: Block[] = [];
  const links: PageLink[] = [];
  let title = '';
  const visit = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (node.type !== 'tag' || blocks.length >= MAX_BLOCKS) continue;
      // Mixed content (text with inline elements, as in DocBook or XHTML) is one paragraph.
      const mixed = directText(node) !== '' && node.children.some((child) => child.type === 'tag');
      const own = mixed ? textOf(node.children).replace(/\s+/g, ' ').trim() : directText(node);
      if (own) {
        if (!title && /(?:^|:)title$/i.test(node.name)) title = own;
        blocks.push(paragraph(own));
        links.push(...linksInText(own, url));
      }
      for (const name of ['href', 'xlink:href', 'rdf:resource', 'src']) {
        const href = absoluteUrl(node.attribs[name], url);
        if (href) links.push({ url: href, text: own });
      }
      if (!mixed) visit(node.children);
    }
  };
  visit(doc.children);
  return makePage({
    url,
    kind: 'xml',
    title: title.slice(0, 300) || titleFromUrl(url),
    blocks,
    links: dedupeLinks(links),
  });
}
