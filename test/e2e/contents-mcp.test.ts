/**
 * The MCP `get_contents` tool end to end: the SDK's real Client over the streamable HTTP door, reading the
 * loopback fixture site. Checks the whole page text by default (fenced, with statuses and ids as
 * structuredContent), long pages in parts by cursor, the `offset` windows, and plain failure lines.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE } from '../fixtures/site/articles.js';
import { DOCS } from '../fixtures/site/docs.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { entryOf, fenced, joinedPieces, outsideFences, pageLines, readAll, textOf, tokensOf, type ToolResult } from '../helpers/mcp.js'; // prettier-ignore

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

/** The same read over REST: the whole compact text unless `text` says otherwise. */
const restContents = async (urls: string[], text: Json = { verbosity: 'compact' }) =>
  (await postJson(t.url, '/contents', { urls, text }, { 'x-api-key': t.key })).body as Json & { results: Json[] };

/** The page text inside a fenced piece (after its `Text:` line). */
const pageText = (content: string) => content.slice(content.indexOf('\nText:\n') + '\nText:\n'.length);

describe('get_contents over streamable HTTP', () => {
  it('returns the whole page text by default, fenced, with statuses and ids as structuredContent', async () => {
    const url = u('/docs/getting-started');
    const res = await getContents({ urls: [url] });
    expect(res.isError ?? false).toBe(false);
    const rest = await restContents([url]);
    const { results, requestId: _r, searchTime: _s, statuses: _cached, ...fields } = rest;
    expect(res.structuredContent).toEqual({
      ...fields,
      requestId: expect.stringMatching(/^[0-9a-f]{32}$/),
      statuses: [{ id: url, status: 'success', source: 'crawled' }],
      searchTime: expect.any(Number),
      results: results.map(entryOf),
    });
    const text = textOf(res);
    expect(outsideFences(text)).toBe('1 of 1 pages read\n\n[1]\n<fence>');
    expect(fenced(text)).toEqual([{ source: url, content: pageLines(results[0]!) }]);
    expect(text).toContain(DOCS.installSentence);
    expect(text).toContain(DOCS.tsSnippet);
    // the text is for the model, said once: structuredContent carries no page text
    expect(JSON.stringify(res.structuredContent)).not.toContain(DOCS.installSentence);
  });

  it('reads long pages whole in parts within maxTokens, continued by cursor, each text exact', async () => {
    const urls = [u('/articles/rust-async'), u('/docs/getting-started')];
    const first = await getContents({ urls, maxTokens: 500 });
    expect(tokensOf(first)).toBeLessThanOrEqual(500);
    const cursor = first.structuredContent!.nextCursor as string;
    expect(textOf(first)).toContain(`call get_contents again with the same arguments and cursor: "${cursor}"`);
    const parts = await readAll(client, 'get_contents', { urls, maxTokens: 500 }, 500);
    expect(parts.length).toBeGreaterThan(2);
    const rest = await restContents(urls);
    expect(joinedPieces(parts)).toEqual(new Map(rest.results.map((r) => [r.url, pageLines(r)])));
    expect(pageText(joinedPieces(parts).get(urls[0]!)!)).toContain(ARTICLE.lastSentence);
    expect(parts.flatMap((p) => p.structuredContent!.results)).toEqual(rest.results.map(entryOf));
  });

  it('says where a text window stopped, and continues from that offset with no overlap or gap', async () => {
    const url = u('/articles/rust-async');
    const whole = await getContents({ urls: [url], text: { maxCharacters: 10000 } });
    const full = pageText(fenced(textOf(whole))[0]!.content);
    expect(full.length).toBeGreaterThan(2000);
    expect(full).toContain(ARTICLE.lastSentence);
    expect(textOf(whole)).not.toMatch(/offset/);

    const first = await getContents({ urls: [url], text: { maxCharacters: 1000 } });
    const part1 = pageText(fenced(textOf(first))[0]!.content);
    expect(part1.length).toBeLessThanOrEqual(1000);
    expect(full.startsWith(part1)).toBe(true);
    const note = `[Text of [1] is characters 0-${part1.length} of ${full.length}. Call get_contents again with offset: ${part1.length} to read on.]`; // prettier-ignore
    expect(outsideFences(textOf(first))).toBe(`1 of 1 pages read\n\n[1]\n<fence>\n${note}`);
    const offset = Number(/offset: (\d+)/.exec(textOf(first))?.[1]);
    expect(offset).toBe(part1.length);

    const next = await getContents({ urls: [url], text: { maxCharacters: 1000 }, offset });
    const part2 = pageText(fenced(textOf(next))[0]!.content);
    expect(part2.trim().length).toBeGreaterThan(0);
    expect(part2.length).toBeLessThanOrEqual(1000);
    // The continuation starts exactly where the first part stopped (leading whitespace aside).
    expect(full.slice(offset).trimStart().startsWith(part2.trimStart())).toBe(true);
    expect(textOf(next)).toMatch(new RegExp(`\\[Text of \\[1\\] is characters ${offset}-\\d+ of ${full.length}\\.`));
  });

  it('lists a failing URL plainly with its tag and a hint, without failing the call', async () => {
    const missing = u('/missing');
    const res = await getContents({ urls: [u('/docs/faq'), missing] });
    expect(res.isError ?? false).toBe(false);
    expect(res.structuredContent?.results?.map((r: Json) => r.url)).toEqual([u('/docs/faq')]);
    expect(res.structuredContent?.statuses?.[1]).toEqual({ id: missing, status: 'error', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 }, message: expect.stringMatching(/answered 404$/) }); // prettier-ignore
    // the failure is Trawl's own line, after the pages and outside every fence
    const outside = outsideFences(textOf(res));
    expect(outside).toMatch(/^1 of 2 pages read\n\n\[1\]\n<fence>\n\nCould not read 1 of 2:\n/);
    const line = outside.split('\n').find((l) => l.includes(missing) && l.includes('CRAWL_NOT_FOUND'));
    expect(line, textOf(res)).toBeDefined();
    // the cause (the status message), then beyond the URL, the tag and the status code, what to do
    expect(line).toContain(`: ${res.structuredContent?.statuses?.[1]?.message as string} — `);
    const hint = line!
      .replace(missing, '')
      .replace('CRAWL_NOT_FOUND', '')
      .replace(/404|HTTP/g, '');
    expect(hint.match(/[a-z]{3,}/gi)?.length ?? 0).toBeGreaterThanOrEqual(3);
  });
});
