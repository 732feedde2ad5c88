/**
 * Markdown inline syntax (code spans, links, images, autolinks, emphasis, strike-through, escapes,
 * raw tags) rendered two ways from one scanner: plain text and escaped HTML. Collects links and images.
 */
import type { PageImage, PageLink } from '../page.js';
import { absoluteUrl, escapeHtml } from './blocks.js';

/** What the inline renderer reads and fills: the base URL, reference definitions, found links and images. */
export interface InlineContext {
  base: string;
  refs: Map<string, string>;
  links: PageLink[];
  images: PageImage[];
}

interface Renderer {
  code(content: string): string;
  image(alt: string, src: string | null): string;
  link(inner: string, href: string | null): string;
  plain(text: string): string;
  emphasis(inner: string, tag: 'strong' | 'em' | 'del'): string;
}

const CODE = /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g;
const IMAGE = /!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const LINK = /\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const REF_LINK = /\[((?:[^[\]]|\[[^\]]*\])+)\]\[([^\]]*)\]/g;
const AUTOLINK = /<(https?:\/\/[^>\s]+)>/g;
const RAW_TAG = /<\/?[a-zA-Z][^>]*>|<!--[\s\S]*?-->/g;
const ESCAPE = /\\([!-/:-@[-`{-~])/g;
function render(md: string, ctx: InlineContext, r: Renderer): string {
  const held: string[] = [];
  const hold = (out: string) => `\uE000${held.push(out) - 1}\uE001`;
  const resolve = (href: string) => ctx.refs.get(href.toLowerCase()) ?? href;
  let s = md.replace(CODE, (_, _f, content: string) => hold(r.code(content.replace(/^ (.+) $/, '$1'))));
  s = s.replace(IMAGE, (_, alt: string, src: string) => hold(image(ctx, r, alt, resolve(src))));
  s = s.replace(LINK, (_, inner: string, href: string) => hold(link(ctx, r, render(inner, ctx, r), resolve(href))));
  s = s.replace(REF_LINK, (whole, inner: string, ref: string) => {
    const href = ctx.refs.get((ref || inner).toLowerCase());
    return href ? hold(link(ctx, r, render(inner, ctx, r), href)) : whole;
  });
  s = s.replace(AUTOLINK, (_, url: string) => hold(link(ctx, r, r.plain(url), url)));
  s = r.plain(s.replace(RAW_TAG, '').replace(ESCAPE, (_, c: string) => hold(r.plain(c))));
  s = s.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, (_, _d, inner: string) => r.emphasis(inner, 'strong'));
  s = s.replace(/~~(?=\S)([\s\S]*?\S)~~/g, (_, inner: string) => r.emphasis(inner, 'del'));
  s = s.replace(/\*(?=[^\s*])([\s\S]*?[^\s*])\*/g, (_, inner: string) => r.emphasis(inner, 'em'));
  // `_` emphasis only at word edges: snake_case_names stay as they are.
  s = s.replace(/(^|[^\p{L}\p{N}_])_(?=\S)([\s\S]*?\S)_(?![\p{L}\p{N}_])/gu, (_, pre: string, inner: string) => pre + r.emphasis(inner, 'em')); // prettier-ignore
  // Placeholders may nest (a link holding an image): restore until none is left.
  while (s.includes('\uE000')) s = s.replace(/\uE000(\d+)\uE001/g, (_, i: string) => held[Number(i)]!);
  return s;
}

function image(ctx: InlineContext, r: Renderer, alt: string, src: string): string {
  const url = absoluteUrl(src, ctx.base);
  if (url) ctx.images.push({ url, alt });
  return r.image(alt, url);
}

function link(ctx: InlineContext, r: Renderer, inner: string, href: string): string {
  const url = absoluteUrl(href, ctx.base);
  if (url) ctx.links.push({ url, text: inner.replace(/<[^>]+>/g, '') });
  return r.link(inner, url);
}

const TEXT: Renderer = {
  code: (content) => content,
  image: (alt) => alt,
  link: (inner) => inner,
  plain: (text) => text,
  emphasis: (inner) => inner,
};

const HTML: Renderer = {
  code: (content) => `<code>${escapeHtml(content)}</code>`,
  image: (alt, src) => (src ? `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}">` : escapeHtml(alt)),
  link: (inner, href) => (href ? `<a href="${escapeHtml(href)}">${inner}</a>` : inner),
  plain: (text) => escapeHtml(text),
  emphasis: (inner, tag) => `<${tag}>${inner}</${tag}>`,
};

/** Inline Markdown → plain text (links and images collected into `ctx`). */
export function inlineText(md: string, ctx: InlineContext): string {
  return render(md, ctx, TEXT).replace(/\s+/g, ' ').trim();
}

/** Inline Markdown → HTML with all text escaped and raw tags dropped (collects nothing). */
export function inlineHtml(md: string, ctx: InlineContext): string {
  return render(md.trim(), { ...ctx, links: [], images: [] }, HTML);
}
