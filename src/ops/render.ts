/**
 * Plain-text renderings of operation outputs, written for a model to read: the facts first, no JSON
 * noise, long texts cut with a note saying so. The structured output travels alongside.
 */
import type { SearchResult } from '../schemas/common.schema.js';

const TEXT_PREVIEW = 4000;

function clip(text: string, max = TEXT_PREVIEW): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n[... ${text.length - max} more characters in structuredContent]`;
}

/** One result as a short block: title, URL, date, then whatever contents were requested. */
export function renderResult(r: SearchResult, index: number): string {
  const lines = [`[${index + 1}] ${r.title || '(untitled)'}`, `URL: ${r.url}`];
  if (r.publishedDate) lines.push(`Published: ${r.publishedDate}`);
  if (r.author) lines.push(`Author: ${r.author}`);
  if (r.summary) lines.push(`Summary: ${r.summary}`);
  if (r.highlights?.length) lines.push('Highlights:', ...r.highlights.map((h) => `- ${h}`));
  if (r.text) lines.push('Text:', clip(r.text));
  return lines.join('\n');
}

export function renderResults(results: SearchResult[], heading?: string): string {
  if (results.length === 0) return heading ? `${heading}\nNo results.` : 'No results.';
  const body = results.map(renderResult).join('\n\n');
  return heading ? `${heading}\n\n${body}` : body;
}

/** Key facts of a record, one `key: value` per line (objects as compact JSON). */
export function renderRecord(title: string, record: Record<string, unknown>): string {
  const lines = Object.entries(record)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? clip(JSON.stringify(v), 800) : String(v)}`);
  return [title, ...lines].join('\n');
}

/** A page of records, one line each. */
export function renderPage(
  title: string,
  page: { data: Record<string, unknown>[]; hasMore: boolean; nextCursor: string | null },
  line: (item: Record<string, unknown>) => string,
): string {
  const lines = page.data.length ? page.data.map(line) : ['(none)'];
  if (page.hasMore) lines.push(`More available: pass cursor "${page.nextCursor}".`);
  return [title, ...lines].join('\n');
}
