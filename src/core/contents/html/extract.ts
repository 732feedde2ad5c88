/**
 * HTML to the page model: parse (htmlparser2), read metadata, clean, walk into blocks with sections,
 * decide the main content, then collect links, images and code. No network, no browser: pure and fast.
 */
import render from 'dom-serializer';
import type { AnyNode, ChildNode, Document, Element, ParentNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import type { Block, Page, PageCodeBlock } from '../page.js';
import { collectAssets } from './assets.js';
import { type RawBlock, collectBlocks } from './blocks.js';
import { cleanTree } from './clean.js';
import { isTag } from './dom.js';
import { readHtmlMetadata } from './metadata.js';
import { type PageType, selectMain } from './score.js';
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

/** The URL relative links resolve against: `<base href>` when valid, else the page's URL. */
function baseUrl(doc: Document, url: string): string {
  const head = findElement(doc, 'head', 2);
  const href = head ? findElement(head, 'base', 1)?.attribs.href : undefined;
  if (!href) return url;
  try {
    return new URL(href, url).href;
  } catch {
    return url;
  }
}

const FORUM_TYPES = new Set(['DiscussionForumPosting', 'QAPage', 'Question']);
const ARTICLE_TYPES = /^(?:[A-Za-z]*NewsArticle|Article|BlogPosting|Report|TechArticle|ScholarlyArticle)$/;

function ogType(doc: Document): string {
  const head = findElement(doc, 'head', 2);
  if (!head) return '';
  for (const c of head.children) {
    if (isTag(c) && c.name === 'meta' && c.attribs.property === 'og:type')
      return (c.attribs.content ?? '').toLowerCase();
  }
  return '';
}

/** What the page says it is (Open Graph, schema.org): decides whether comments can be the content. */
function declaredType(og: string, ldTypes: string[]): PageType {
  if (ldTypes.some((t) => FORUM_TYPES.has(t))) return 'forum';
  if (og === 'article' || ldTypes.some((t) => ARTICLE_TYPES.test(t))) return 'article';
  return null;
}

/** The block's cleaned HTML: the element itself, or for a run of inline content a `<p>` around it. */
function blockHtml(b: RawBlock): string {
  const opts = { encodeEntities: 'utf8' as const };
  if (!b.nodes) return render(b.el, opts);
  const run = new Set<ChildNode>(b.nodes);
  const whole = b.el.children.every((c) => run.has(c) || (c.type === 'text' && !(c as { data: string }).data.trim()));
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
  const urls = new UrlResolver(baseUrl(doc, url), url);
  const og = ogType(doc);
  const stats = cleanTree(doc);
  // the whole document, not just <body>: browsers move stray content after </body> or </html> into
  // the body, htmlparser2 leaves it at the root (the clean pass has already dropped <head>)
  const raw = collectBlocks(doc, ROOT_SECTION, urls);
  const verdicts = selectMain(raw, doc, { declared: declaredType(og, stats.ldTypes) });

  const codeBlocks: PageCodeBlock[] = [];
  const blocks: Block[] = [];
  const mainRoots = new Set<AnyNode>();
  raw.forEach((b, i) => {
    const main = verdicts[i]!;
    blocks.push(toBlock(b, main));
    if (!main) return;
    for (const n of b.nodes ?? [b.el]) mainRoots.add(n);
    if (b.kind === 'code') codeBlocks.push({ language: b.language ?? null, code: b.text });
  });
  const inMain = (el: Element) => {
    for (let n: AnyNode | null = el; n; n = n.parent) if (mainRoots.has(n)) return true;
    return false;
  };
  const assets = collectAssets(stats.assets, inMain, urls);

  const textChars = raw.reduce((n, b) => n + b.textChars, 0);
  const needsBrowser = looksLikeShell(findElement(doc, 'body') ?? doc, {
    textChars,
    scripts: stats.scripts,
    noscriptText: stats.noscriptText,
  });
  return {
    ...metadata,
    ...(assets.contacts ? { contacts: assets.contacts } : {}),
    url,
    kind: 'html',
    blocks,
    links: assets.links,
    images: assets.images,
    codeBlocks,
    needsBrowser,
  };
}
