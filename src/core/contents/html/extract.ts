/**
 * HTML to the page model: parse (htmlparser2), read metadata, clean, walk into blocks with sections,
 * decide the main content, then collect links, images and code. No network, no browser: pure and fast.
 */
import render from 'dom-serializer';
import type { ChildNode, Document, Element, ParentNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import type { Block, Page, PageCodeBlock } from '../page.js';
import { AssetCollector } from './assets.js';
import { type RawBlock, collectBlocks } from './blocks.js';
import { cleanTree } from './clean.js';
import { isTag } from './dom.js';
import { readHtmlMetadata } from './metadata.js';
import { selectMain } from './score.js';
import { ROOT_SECTION } from './sections.js';
import { looksLikeShell } from './shell.js';
import { UrlResolver } from './urls.js';

function findElement(root: ParentNode, name: string, maxDepth = 3): Element | null {
  for (const child of root.children) {
    if (!isTag(child)) continue;
    if (child.name === name) return child;
    if (maxDepth > 0) {
      const hit = findElement(child, name, maxDepth - 1);
      if (hit) return hit;
    }
  }
  return null;
}

function baseHref(doc: Document): string | undefined {
  const head = findElement(doc, 'head', 2);
  const base = head ? findElement(head, 'base', 1) : null;
  return base?.attribs.href;
}

function blockHtml(b: RawBlock): string {
  const opts = { encodeEntities: 'utf8' as const };
  if (!b.nodes) return render(b.el, opts);
  const significant = b.el.children.filter((c) => c.type !== 'text' || (c as { data: string }).data.trim());
  const whole = significant.every((c) => b.nodes!.includes(c as ChildNode));
  return whole ? render(b.el, opts) : `<p>${render(b.nodes, opts).trim()}</p>`;
}

function toBlock(b: RawBlock, main: boolean): Block {
  const block: Block = { kind: b.kind, section: b.section, main, markdown: b.md, text: b.text, html: blockHtml(b) };
  if (b.level !== undefined) block.level = b.level;
  if (b.language) block.language = b.language;
  return block;
}

/**
 * Parses like a browser where htmlparser2 does not: in HTML content `<![CDATA[` opens a bogus comment
 * that ends at the next `>`, whereas htmlparser2 waits for `]]>` and can swallow the rest of the page.
 */
function parseHtml(html: string): Document {
  const source = html.includes('<![CDATA[') ? html.replaceAll('<![CDATA[', '<!CDATA[') : html;
  return parseDocument(source, { decodeEntities: true });
}

/** Extracts the page model from an HTML document fetched from `url` (the final URL after redirects). */
export function extractHtml(html: string, url: string): Page {
  const doc = parseHtml(html);
  const metadata = readHtmlMetadata(doc, url);
  const base = baseHref(doc);
  const urls = new UrlResolver(base ? new URL(base, url).href : url, url);
  const stats = cleanTree(doc);
  const body = findElement(doc, 'body') ?? doc;
  const raw = collectBlocks(body, ROOT_SECTION, urls);
  const verdicts = selectMain(raw, body);

  const assets = new AssetCollector(urls);
  const codeBlocks: PageCodeBlock[] = [];
  const blocks: Block[] = [];
  raw.forEach((b, i) => {
    const main = verdicts[i]!;
    blocks.push(toBlock(b, main));
    if (!main) return;
    assets.add(b.nodes ?? [b.el]);
    if (b.kind === 'code') codeBlocks.push({ language: b.language ?? null, code: b.text });
  });
  assets.add(body.children);

  const textChars = raw.reduce((n, b) => n + b.textChars, 0);
  const needsBrowser = looksLikeShell(body, { textChars, scripts: stats.scripts, noscriptText: stats.noscriptText });
  return {
    ...metadata,
    url,
    kind: 'html',
    blocks,
    links: assets.links,
    images: assets.images,
    codeBlocks,
    needsBrowser,
  };
}
