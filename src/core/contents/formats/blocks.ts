/**
 * Shared pieces of the non-HTML readers: block constructors (Markdown, text and escaped HTML kept in
 * step), URL resolution and the title a URL gives when a document has none.
 */
import type { Block, Page, PageLink } from '../page.js';

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Escapes what Markdown would read as markup: backticks, asterisks, brackets, `<`, underscores at word
 * edges (snake_case stays readable) and a line-leading heading, quote or list marker.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/([`*[\]<])/g, '\\$1')
    .replace(/(?<![\p{L}\p{N}_])_+|_+(?![\p{L}\p{N}_])/gu, (run) => run.replace(/_/g, '\\_'))
    .replace(/^(\s*)([#>+-])(\s)/gm, '$1\\$2$3')
    .replace(/^(\s*\d+)\.(\s)/gm, '$1\\.$2');
}

/** A body block of the main content. */
export function block(
  kind: Block['kind'],
  markdown: string,
  text: string,
  html: string,
  extra: Partial<Block> = {},
): Block {
  return { kind, section: 'body', main: true, markdown, text, html, ...extra };
}

/** A paragraph of plain text. */
export function paragraph(text: string): Block {
  return block('paragraph', escapeMarkdown(text), text, `<p>${escapeHtml(text)}</p>`);
}

/** A heading of plain text. */
export function heading(text: string, level: number): Block {
  const l = Math.min(6, Math.max(1, level));
  return block('heading', `${'#'.repeat(l)} ${escapeMarkdown(text)}`, text, `<h${l}>${escapeHtml(text)}</h${l}>`, {
    level: l,
  });
}

/** A fenced code block; the fence grows past any backtick run inside the code. */
export function codeBlock(code: string, language: string | null): Block {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
  return block(
    'code',
    `${fence}${language ?? ''}\n${code}\n${fence}`,
    code,
    `<pre><code${cls}>${escapeHtml(code)}</code></pre>`,
    {
      ...(language ? { language } : {}),
    },
  );
}

/** `href` resolved against `base` when it is an absolute http(s) URL, else null. */
export function absoluteUrl(href: string | undefined | null, base: string): string | null {
  if (!href) return null;
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** Keeps the first link per URL. */
export function dedupeLinks(links: PageLink[]): PageLink[] {
  const seen = new Set<string>();
  return links.filter((link) => !seen.has(link.url) && seen.add(link.url));
}

/** A readable title from a URL: its last path segment without extension, else its host name. */
export function titleFromUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const segment = parsed.pathname.split('/').filter(Boolean).pop() ?? '';
    let name = segment;
    try {
      name = decodeURIComponent(segment);
    } catch {
      // keep the raw segment
    }
    name = name
      .replace(/\.[a-z0-9]{1,5}$/i, '')
      .replace(/[-_+]+/g, ' ')
      .trim();
    return name || parsed.hostname;
  } catch {
    return url;
  }
}

/** A page of a non-HTML kind with the fields every reader fills the same way. */
export function makePage(fields: Pick<Page, 'url' | 'kind' | 'title' | 'blocks'> & Partial<Page>): Page {
  return { author: null, publishedDate: null, links: [], images: [], codeBlocks: [], ...fields };
}

/** Absolute http(s) URLs written out in plain text, in order, deduplicated. */
export function linksInText(text: string, base: string): PageLink[] {
  const links: PageLink[] = [];
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"'`)\]}]+/g)) {
    const url = absoluteUrl(match[0].replace(/[.,;:!?]+$/, ''), base);
    if (url) links.push({ url, text: '' });
  }
  return dedupeLinks(links);
}
