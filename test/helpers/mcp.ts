/**
 * Test helpers: the MCP SDK's real clients connected in memory to an app's MCP server (the v1 client,
 * `@modelcontextprotocol/sdk` 1.32, speaking 2025-11-25; the v2 client, `@modelcontextprotocol/client`,
 * speaking 2026-07-28), and readers of their answers (the fenced pieces of the text, the tokens the
 * budget counts, a result's entry).
 */
import { Client as ModernClient, InMemoryTransport as ModernMemory } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { expect } from 'vitest';
import type { App } from '../../src/compose/app.js';
import { buildMcpServer } from '../../src/mcp/server.js';

/** The Tasks extension of 2026-07-28, as a v2 client declares it in its capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface ConnectOptions {
  /** Whether the client offers sampling (its own model). */
  sampling?: boolean;
  /** Beta tokens the calls run with. */
  betas?: string[];
  /** The tools the server serves (catalog names, e.g. `ALL_TOOLS`); default: the app's configured set. */
  tools?: readonly string[];
}

/** A connected v1 client (2025-11-25) for `app` (the local caller: no key), optionally offering sampling. */
export async function connectMcp(app: App, options: ConnectOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const tools = options.tools ? { tools: options.tools } : {};
  // the v1 in-memory transport is a Transport as the v2 server takes it (the same message interface)
  await buildMcpServer(app, { caller: null, betas: new Set(options.betas ?? []), ...tools }).connect(serverSide as unknown as Transport); // prettier-ignore
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: options.sampling ? { sampling: {} } : {} }); // prettier-ignore
  await client.connect(clientSide);
  return client;
}

/**
 * A connected v2 client for `app` (the local caller), served as `trawl mcp` serves one: the SDK's
 * `serveStdio` over an in-memory pair picks the era from the client's opening (`server/discover`:
 * 2026-07-28). It declares the Tasks extension unless `tasks: false`.
 */
export async function connectModernMcp(
  app: App,
  options: Omit<ConnectOptions, 'sampling'> & { tasks?: boolean; sample?: (params: Json) => string } = {},
): Promise<ModernClient> {
  const [clientSide, serverSide] = ModernMemory.createLinkedPair();
  const tools = options.tools ? { tools: options.tools } : {};
  serveStdio(({ era }) => buildMcpServer(app, { caller: null, betas: new Set(options.betas ?? []), era, ...tools }), {
    transport: serverSide,
  });
  const client = modernClient(options.tasks !== false, options.sample !== undefined);
  const sample = options.sample;
  if (sample) {
    // the client's model: the SDK's client answers the server's input_required sampling requests with it
    client.setRequestHandler('sampling/createMessage', (request) => ({
      model: 'client-model-2',
      role: 'assistant',
      content: { type: 'text', text: sample(request.params as Json) },
      stopReason: 'endTurn',
    }));
  }
  await client.connect(clientSide);
  return client;
}

/** A v2 client that negotiates 2026-07-28 (declaring the Tasks extension when `tasks`, sampling when `sampling`). */
export function modernClient(tasks = true, sampling = false): ModernClient {
  return new ModernClient(
    { name: 'test-v2', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: {
        ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
        ...(sampling ? { sampling: {} } : {}),
      },
    },
  );
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

/**
 * One JSON-RPC request POSTed to `${base}/mcp` as a stateless client sends it (no session, protocol
 * 2025-06-18), with `key`; `query` adds a query string. The raw response, JSON or one SSE event.
 */
export function postMcp(
  base: string,
  key: string,
  body: { id: number; method: string; params: unknown },
  query = '',
): Promise<Response> {
  return fetch(`${base}/mcp${query}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': key,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
}
