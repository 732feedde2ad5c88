/**
 * The MCP `get_contents` tool end to end: the SDK's real Client over the streamable HTTP door, reading the
 * loopback fixture site. Checks the default text, reading a long page in parts, and plain failure lines.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE } from '../fixtures/site/articles.js';
import { DOCS } from '../fixtures/site/docs.js';
import { startTestServer, type TestServer } from '../helpers/app.js';

interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: {
    results?: { url: string; text?: string }[];
    statuses?: { id: string; status: string; error?: { tag: string; httpStatusCode: number | null } | null }[];
  };
}

let site: FixtureSite;
let t: TestServer;
let client: Client;
beforeAll(async () => {
  site = await startFixtureSite();
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'], fetchMaxBytes: 1048576 });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${t.key}` } },
  });
  client = new Client({ name: 'contents-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
  await site?.close();
});

const u = (path: string) => site.url + path;

async function getContents(args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name: 'get_contents', arguments: args })) as ToolResult;
}

const textOf = (res: ToolResult) => res.content.map((c) => c.text).join('\n');

describe('get_contents over streamable HTTP', () => {
  it('returns the page text by default, with the full response as structuredContent', async () => {
    const res = await getContents({ urls: [u('/docs/getting-started')] });
    expect(res.isError ?? false).toBe(false);
    expect(textOf(res)).toContain(DOCS.installSentence);
    expect(textOf(res)).toContain(DOCS.tsSnippet);
    expect(res.structuredContent?.results).toHaveLength(1);
    expect(res.structuredContent?.results?.[0]?.text).toContain(DOCS.installSentence);
    expect(res.structuredContent?.statuses).toEqual([
      expect.objectContaining({ id: u('/docs/getting-started'), status: 'success' }),
    ]);
  });

  it('says where a truncated text stopped, and continues from that offset with no overlap or gap', async () => {
    const url = u('/articles/rust-async');
    const whole = await getContents({ urls: [url], text: { maxCharacters: 10000 } });
    const full = whole.structuredContent!.results![0]!.text!;
    expect(full.length).toBeGreaterThan(2000);
    expect(full).toContain(ARTICLE.lastSentence);

    const first = await getContents({ urls: [url], text: { maxCharacters: 1000 } });
    expect(textOf(first)).toMatch(/truncat/i);
    const offset = Number(/offset\D{0,5}(\d+)/i.exec(textOf(first))?.[1]);
    const part1 = first.structuredContent!.results![0]!.text!;
    expect(part1.length).toBeLessThanOrEqual(1000);
    expect(full.startsWith(part1)).toBe(true);
    expect(offset).toBe(part1.length);

    const next = await getContents({ urls: [url], text: { maxCharacters: 1000 }, offset });
    const part2 = next.structuredContent!.results![0]!.text!;
    expect(part2.trim().length).toBeGreaterThan(0);
    expect(part2.length).toBeLessThanOrEqual(1000);
    // The continuation starts exactly where the first part stopped (leading whitespace aside).
    expect(full.slice(offset).trimStart().startsWith(part2.trimStart())).toBe(true);
    expect(textOf(next)).toContain(part2.trim().slice(0, 80));
  });

  it('lists a failing URL plainly with its tag and a hint, without failing the call', async () => {
    const missing = u('/missing');
    const res = await getContents({ urls: [u('/docs/faq'), missing] });
    expect(res.isError ?? false).toBe(false);
    expect(res.structuredContent?.results?.map((r) => r.url)).toEqual([u('/docs/faq')]);
    expect(res.structuredContent?.statuses?.[1]?.error?.tag).toBe('CRAWL_NOT_FOUND');
    const line = textOf(res)
      .split('\n')
      .find((l) => l.includes(missing) && l.includes('CRAWL_NOT_FOUND'));
    expect(line, textOf(res)).toBeDefined();
    // Beyond the URL, the tag and the status code, the line says what to do.
    const hint = line!
      .replace(missing, '')
      .replace('CRAWL_NOT_FOUND', '')
      .replace(/404|HTTP/g, '');
    expect(hint.match(/[a-z]{3,}/gi)?.length ?? 0).toBeGreaterThanOrEqual(3);
  });
});
