/**
 * Markdown → Page: a line-based block parser (front matter, ATX and setext headings, fenced and
 * indented code, lists, pipe tables, quotes, rules, paragraphs); inline syntax in ./markdown-inline.ts.
 */
import { toIsoDate } from '../../text/dates.js';
import type { Block, Page } from '../page.js';
import { block, codeBlock, dedupeLinks, escapeHtml, escapeMarkdown, makePage, titleFromUrl } from './blocks.js';
import { inlineHtml, inlineText, type InlineContext } from './markdown-inline.js';

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`{]*)/;
const ATX = /^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$/;
const RULE = /^ {0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(\s+|$)/;
const QUOTE = /^ {0,3}>\s?/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const REF_DEF = /^ {0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+["'(].*)?\s*$/;
const HTML_START = /^ {0,3}<(?:[a-zA-Z][\w-]*[\s/>]|[a-zA-Z][\w-]*$|\/[a-zA-Z]|!--)/;

interface FrontMatter {
  title?: string;
  author?: string;
  date?: string;
  description?: string;
}

function unquote(value: string): string {
  return value
    .trim()
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
}

/** Splits off YAML (`---`) or TOML (`+++`) front matter and reads its title, author, date and description. */
export function readFrontMatter(source: string): { front: FrontMatter; body: string } {
  const m = /^(?:\uFEFF)?(---|\+\+\+)[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\+\+\+|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(source);
  if (!m) return { front: {}, body: source };
  const values = new Map<string, string>();
  const lines = m[2]!.split(/\r?\n/);
  lines.forEach((line, i) => {
    const kv = /^([A-Za-z_][\w-]*)\s*[:=]\s*(.*)$/.exec(line);
    if (!kv) return;
    let value = kv[2]!.trim();
    if (value.startsWith('[')) value = value.replace(/^\[|\]$/g, '').split(',')[0] ?? '';
    else if (!value) value = /^\s+-\s+(.+)$/.exec(lines[i + 1] ?? '')?.[1] ?? ''; // YAML list: its first item
    if (value.startsWith('{')) value = /name\s*[:=]\s*([^,}]+)/.exec(value)?.[1] ?? '';
    values.set(kv[1]!.toLowerCase(), unquote(value.replace(/^name:\s*/, '')));
  });
  const get = (...keys: string[]) => keys.map((k) => values.get(k)).find((v) => v);
  const front: FrontMatter = {};
  const entries: [keyof FrontMatter, string | undefined][] = [
    ['title', get('title')],
    ['author', get('author', 'authors', 'creator')],
    ['date', get('date', 'published', 'publishdate', 'pubdate', 'created')],
    ['description', get('description', 'summary', 'excerpt')],
  ];
  for (const [key, value] of entries) if (value) front[key] = value;
  return { front, body: source.slice(m[0].length) };
}

interface Parser {
  lines: string[];
  i: number;
  blocks: Block[];
  ctx: InlineContext;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || ATX.test(line) || QUOTE.test(line) || RULE.test(line) || /^ {0,3}[-*+]\s+\S/.test(line);
}

function take(p: Parser, more: (line: string) => boolean): string[] {
  const out: string[] = [];
  while (p.i < p.lines.length && more(p.lines[p.i]!)) out.push(p.lines[p.i++]!);
  return out;
}

function fenced(p: Parser, m: RegExpExecArray): Block {
  const [indent, fence, info] = [m[1]!.length, m[2]!, m[3]!];
  p.i++;
  const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
  const body = take(p, (line) => !close.test(line));
  p.i++; // the closing fence (or the end)
  const code = body.map((line) => line.replace(new RegExp(`^ {0,${indent}}`), '')).join('\n');
  return codeBlock(code, info ? info.toLowerCase() : null);
}

function listBlock(p: Parser): Block {
  const source: string[] = [];
  while (p.i < p.lines.length) {
    const line = p.lines[p.i]!;
    if (line.trim() === '') {
      const next = p.lines[p.i + 1] ?? '';
      if (!LIST_ITEM.test(next) && !/^\s{2,}\S/.test(next)) break;
    } else if (source.length > 0 && !LIST_ITEM.test(line) && !/^\s/.test(line) && startsBlock(line)) break;
    source.push(line);
    p.i++;
  }
  const items: string[] = [];
  for (const line of source) {
    const item = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
    if (item) items.push(item[1]!);
    else if (line.trim() && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
  }
  const ordered = /^\s*\d/.test(source[0] ?? '');
  const tag = ordered ? 'ol' : 'ul';
  const text = items.map((item) => inlineText(item.replace(/^\[[ xX]\]\s+/, ''), p.ctx)).join('\n');
  const html = `<${tag}>${items.map((item) => `<li>${inlineHtml(item, p.ctx)}</li>`).join('')}</${tag}>`;
  return block('list', source.join('\n').trimEnd(), text, html);
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||(?<!\\)\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function tableBlock(p: Parser): Block {
  const source = take(p, (line) => line.includes('|') && line.trim() !== '');
  const rows = source.filter((_, i) => i !== 1).map(cells);
  const text = rows.map((row) => row.map((c) => inlineText(c, p.ctx)).join(' | ')).join('\n');
  const row = (r: string[], cell: string) =>
    `<tr>${r.map((c) => `<${cell}>${inlineHtml(c, p.ctx)}</${cell}>`).join('')}</tr>`;
  const html = `<table><thead>${row(rows[0] ?? [], 'th')}</thead><tbody>${rows
    .slice(1)
    .map((r) => row(r, 'td'))
    .join('')}</tbody></table>`;
  return block('table', source.join('\n'), text, html);
}

function quoteBlock(p: Parser): Block {
  const source = take(p, (line) => line.trim() !== '' && (QUOTE.test(line) || !startsBlock(line)));
  const inner = source.map((line) => line.replace(QUOTE, '')).join(' ');
  return block(
    'quote',
    source.join('\n'),
    inlineText(inner, p.ctx),
    `<blockquote><p>${inlineHtml(inner, p.ctx)}</p></blockquote>`,
  );
}

function headingBlock(p: Parser, text: string, level: number): Block {
  const plain = inlineText(text, p.ctx);
  return block(
    'heading',
    `${'#'.repeat(level)} ${text.trim()}`,
    plain,
    `<h${level}>${inlineHtml(text, p.ctx)}</h${level}>`,
    { level },
  );
}

function paragraphBlock(p: Parser): Block {
  const source = [p.lines[p.i++]!];
  while (p.i < p.lines.length) {
    const line = p.lines[p.i]!;
    if (line.trim() === '' || startsBlock(line)) break;
    const setext = /^ {0,3}(=+|-+)\s*$/.exec(line);
    if (setext) {
      p.i++;
      return headingBlock(p, source.join(' '), setext[1]![0] === '=' ? 1 : 2);
    }
    source.push(line);
    p.i++;
  }
  const raw = HTML_START.test(source[0]!);
  // Raw HTML keeps its text only: scripts and styles go, tags are dropped.
  const inner = raw ? source.join('\n').replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '') : source.join('\n');
  const text = inlineText(inner, p.ctx);
  if (raw) return block('paragraph', escapeMarkdown(text), text, `<p>${escapeHtml(text)}</p>`);
  return block('paragraph', inner.trim(), text, `<p>${inlineHtml(inner, p.ctx)}</p>`);
}

function next(p: Parser): Block | null {
  const line = p.lines[p.i]!;
  let m: RegExpExecArray | null;
  if (line.trim() === '') return (p.i++, null);
  if ((m = FENCE.exec(line))) return fenced(p, m);
  if ((m = ATX.exec(line))) return (p.i++, headingBlock(p, m[2] ?? '', m[1]!.length));
  if (RULE.test(line)) return (p.i++, block('rule', '---', '', '<hr>'));
  if (LIST_ITEM.test(line)) return listBlock(p);
  if (QUOTE.test(line)) return quoteBlock(p);
  if (line.includes('|') && TABLE_DELIMITER.test(p.lines[p.i + 1] ?? '') && (p.lines[p.i + 1] ?? '').includes('-'))
    return tableBlock(p);
  if (/^(?: {4}|\t)/.test(line)) {
    const body = take(p, (l) => /^(?: {4}|\t)/.test(l) || l.trim() === '');
    return codeBlock(
      body
        .map((l) => l.replace(/^(?: {4}|\t)/, ''))
        .join('\n')
        .replace(/\s+$/, ''),
      null,
    );
  }
  if (/^ {0,3}<!--[\s\S]*-->\s*$/.test(line)) return (p.i++, null);
  return paragraphBlock(p);
}

/** Reads a Markdown body: title from front matter, else the first H1, else the URL. */
export function parseMarkdown(source: string, url: string): Page {
  const { front, body } = readFrontMatter(source.replace(/\r\n?/g, '\n'));
  const lines = body.split('\n');
  const refs = new Map<string, string>();
  const kept = lines.filter((line) => {
    const def = REF_DEF.exec(line);
    if (def) refs.set(def[1]!.toLowerCase(), def[2]!);
    return !def;
  });
  const p: Parser = { lines: kept, i: 0, blocks: [], ctx: { base: url, refs, links: [], images: [] } };
  while (p.i < p.lines.length) {
    const b = next(p);
    if (b && (b.text || b.kind === 'rule')) p.blocks.push(b);
  }
  const h1 = p.blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  const page = makePage({
    url,
    kind: 'markdown',
    title: front.title || h1 || titleFromUrl(url),
    author: front.author || null,
    publishedDate: front.date ? toIsoDate(front.date) : null,
    blocks: p.blocks,
    links: dedupeLinks(p.ctx.links),
    images: p.ctx.images.filter((img, i) => p.ctx.images.findIndex((o) => o.url === img.url) === i),
    codeBlocks: p.blocks.filter((b) => b.kind === 'code').map((b) => ({ language: b.language ?? null, code: b.text })),
  });
  if (front.description) page.description = front.description;
  return page;
}
