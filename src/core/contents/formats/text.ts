/**
 * Plain text → Page: paragraphs split on blank lines, hard-wrapped prose joined, blocks of code-like or
 * list lines kept line by line; the first line is the title when it is short.
 */
import { isStructuredLine } from '../../text/sentences.js';
import type { Block, Page } from '../page.js';
import { block, codeBlock, escapeHtml, heading, linksInText, makePage, paragraph, titleFromUrl } from './blocks.js';

const MAX_TITLE = 120;

/** One paragraph of plain text → a block: prose is rejoined, line-structured text keeps its lines. */
function textBlock(raw: string): Block {
  const lines = raw.split('\n').filter((line) => line.trim().length > 0);
  const structured = lines.filter((line) => isStructuredLine(line)).length;
  if (lines.length > 1 && structured * 2 >= lines.length) {
    const code = lines.every((line) => /^(?: {2,}|\t)/.test(line)) || /[;{}]\s*$/m.test(raw);
    if (code) return codeBlock(raw.replace(/^\n+|\s+$/g, ''), null);
    const text = lines.map((line) => line.trim()).join('\n');
    return block('paragraph', text.split('\n').join('  \n'), text, `<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>`);
  }
  return paragraph(lines.map((line) => line.trim()).join(' '));
}

/** Reads a plain-text body. */
export function parseText(text: string, url: string): Page {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .filter((p) => p.trim().length > 0);
  const firstLine = paragraphs[0]?.trim().split('\n')[0]?.trim() ?? '';
  const titled = firstLine.length > 0 && firstLine.length <= MAX_TITLE;
  const blocks = paragraphs.map((p, i) =>
    i === 0 && titled && !p.trim().includes('\n') ? heading(firstLine, 1) : textBlock(p),
  );
  return makePage({
    url,
    kind: 'text',
    title: titled ? firstLine : titleFromUrl(url),
    blocks,
    links: linksInText(text, url),
    codeBlocks: blocks.filter((b) => b.kind === 'code').map((b) => ({ language: b.language ?? null, code: b.text })),
  });
}
