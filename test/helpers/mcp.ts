/**
 * Test helpers: the MCP SDK's real client connected in memory to an app's MCP server, and readers of
 * its answers (the fenced pieces of the text, the tokens the budget counts, a result's entry).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { expect } from 'vitest';
import type { App } from '../../src/compose/app.js';
import { buildMcpServer } from '../../src/mcp/server.js';

export interface ConnectOptions {
  /** Whether the client offers sampling (its own model). */
  sampling?: boolean;
  /** Beta tokens the calls run with. */
  betas?: string[];
  /** The tools the server serves (catalog names, e.g. `ALL_TOOLS`); default: the app's configured set. */
  tools?: readonly string[];
}

/** A connected client for `app` (the local caller: no key), optionally offering sampling. */
export async function connectMcp(app: App, options: ConnectOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const tools = options.tools ? { tools: options.tools } : {};
  await buildMcpServer(app, { caller: null, betas: new Set(options.betas ?? []), ...tools }).connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: options.sampling ? { sampling: {} } : {} }); // prettier-ignore
  await client.connect(clientSide);
  return client;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A tool result as the tests read it. */
export interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Json;
}

/** A fence of untrusted content: `<untrusted-NONCE source="…">`, the content, `</untrusted-NONCE>`. */
export const FENCED = /<untrusted-([0-9a-f]{12}) source=("(?:[^"\\]|\\.)*")>\n([\s\S]*?)\n<\/untrusted-\1>/g;

/** The fenced pieces of a text, in order: each one's source (as named in its fence) and content. */
export function fenced(text: string): { source: string; content: string }[] {
  return [...text.matchAll(FENCED)].map((m) => ({ source: JSON.parse(m[2]!) as string, content: m[3]! }));
}

/** A text with each fenced piece replaced by `<fence>`: Trawl's own lines only. */
export const outsideFences = (text: string): string => text.replace(FENCED, '<fence>');

/** The text of a tool result. */
export const textOf = (res: ToolResult): string => res.content.map((c) => c.text).join('\n');

/** Tokens of a result as the door's budget counts them (o200k_base): its text plus the JSON of its structured content. */
export const tokensOf = (res: ToolResult): number =>
  countTokens(textOf(res)) + countTokens(JSON.stringify(res.structuredContent ?? {}));

/**
 * Calls `tool` and follows `nextCursor` to the end (the other arguments repeated, as a client must),
 * expecting every part to succeed within `maxTokens` (the budget in force: the call's or the server's);
 * returns the parts in order.
 */
export async function readAll(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  maxTokens: number,
): Promise<ToolResult[]> {
  const parts: ToolResult[] = [];
  let cursor: string | undefined;
  do {
    const res = (await client.callTool({ name: tool, arguments: { ...args, ...(cursor ? { cursor } : {}) } })) as ToolResult; // prettier-ignore
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(tokensOf(res), `part ${parts.length + 1}`).toBeLessThanOrEqual(maxTokens);
    parts.push(res);
    cursor = res.structuredContent?.nextCursor as string | undefined;
  } while (cursor && parts.length < 100);
  expect(cursor, 'an answer in at most 100 parts').toBeUndefined();
  return parts;
}

/** Each source's content joined across parts (a page cut between parts reads as one). */
export function joinedPieces(parts: readonly ToolResult[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of parts) {
    for (const { source, content } of fenced(textOf(part))) out.set(source, (out.get(source) ?? '') + content);
  }
  return out;
}

/** A REST result (search, find similar, contents) as its page's lines in the text: title, dates, summary, highlights, text. */
export function pageLines(r: Json): string {
  const lines = [`Title: ${r.title || '(untitled)'}`];
  if (r.publishedDate) lines.push(`Published: ${r.publishedDate}`);
  if (r.author) lines.push(`Author: ${r.author}`);
  if (r.summary) lines.push(`Summary: ${r.summary}`);
  if (r.highlights?.length) lines.push('Highlights:', ...(r.highlights as string[]).map((h) => `- ${h}`));
  if (typeof r.text === 'string') lines.push('Text:', r.text);
  return lines.join('\n');
}

/** A REST result as its entry of `structuredContent.results`: what cites or fetches it, never its text. */
export function entryOf(r: Json): Json {
  const entry: Json = { id: r.id, url: r.url, title: r.title };
  for (const key of ['publishedDate', 'author', 'score', 'image', 'favicon']) {
    if (r[key] !== undefined && r[key] !== null) entry[key] = r[key];
  }
  return entry;
}

/** A record's structured content (a monitor, a run, a code context answer): it lists no `results`. */
export function recordOf(res: ToolResult): Json {
  const { results, ...record } = res.structuredContent ?? {};
  if (results !== undefined && (!Array.isArray(results) || results.length > 0)) {
    throw new Error(`a record with results: ${JSON.stringify(results)}`);
  }
  return record;
}
