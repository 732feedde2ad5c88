// /findSimilar through the real REST door and the MCP tool: the source page read from a loopback site,
// its distinctive terms ranking the stored documents, the page itself (and its site on request) left
// out, the endpoint's filters applied, an unreadable URL answered with a tag, and the cost shape.
import dns from 'node:dns';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedDoc } from '../helpers/documents.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { entryOf, fenced, outsideFences, pageLines, textOf, type ToolResult } from '../helpers/mcp.js';

const NOW = '2026-11-20T10:00:00.000Z';
const doc = (url: string, title: string, text: string, publishedDate: string | null = null) =>
  storedDoc(url, title, text, { publishedDate });

let site: FixtureSite;
let t: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  // find_similar is not a default MCP tool: the `web` group enables it
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'], fetchMaxBytes: 1048576, tools: ['web'] });
  await t.app.services.documents.upsertMany(
    [
      doc('https://blog.example.com/futures', 'Rust futures and polling', 'A future in Rust is lazy: it does nothing until an executor polls it. Async runtimes such as Tokio poll futures.', '2024-05-01T00:00:00.000Z'), // prettier-ignore
      doc('https://docs.example.org/async-book', 'The async book', 'Async Rust: futures, executors, wakers and polling explained, with the Tokio runtime.', '2023-01-01T00:00:00.000Z'), // prettier-ignore
      doc(
        'https://cooking.example.net/bread',
        'Sourdough bread',
        'Feed the starter, knead the dough, bake in a hot oven.',
      ),
    ],
    NOW,
  );
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

const similar = (body: Record<string, unknown>) => postJson(t.url, '/findSimilar', body, { 'x-api-key': t.key });
const urls = (body: Record<string, unknown>) => (body.results as { url: string }[]).map((r) => r.url);

describe('POST /findSimilar', () => {
  it('ranks pages like the source, leaving the source out, with the spec cost shape', async () => {
    const source = `${site.url}/articles/rust-async`;
    const res = await similar({ url: source, numResults: 5 });
    expect(res.status).toBe(200);
    const found = urls(res.body);
    expect(found.slice(0, 2).sort()).toEqual([
      'https://blog.example.com/futures',
      'https://docs.example.org/async-book',
    ]);
    expect(found).not.toContain(source);
    // a page sharing only a word or two ranks below both
    if (found.includes('https://cooking.example.net/bread'))
      expect(found.indexOf('https://cooking.example.net/bread')).toBe(2);
    const cost = res.body.costDollars as Record<string, unknown>;
    expect(cost.total).toBeGreaterThan(0);
    expect(cost.breakDown).toEqual([
      expect.objectContaining({ search: expect.any(Number), contents: 0, breakdown: expect.objectContaining({ neuralSearch: expect.any(Number) }) }), // prettier-ignore
    ]);
    expect(Object.keys(cost.perRequestPrices as object).sort()).toEqual([
      'deepReasoningSearch',
      'deepSearch',
      'neuralSearch_1_10_results',
      'neuralSearch_additional_result',
    ]);
    expect(Object.keys(cost.perPagePrices as object).sort()).toEqual([
      'contentHighlight',
      'contentSummary',
      'contentText',
    ]);
  });

  it('leaves out the source domain with excludeSourceDomain', async () => {
    await t.app.services.documents.upsert(
      doc(`${site.url}/other-rust`, 'More Rust futures', 'Futures polling executors in Rust.'),
      NOW,
    );
    const res = await similar({ url: `${site.url}/articles/rust-async`, excludeSourceDomain: true });
    expect(urls(res.body).some((u) => u.startsWith(site.url))).toBe(false);
    const kept = await similar({ url: `${site.url}/articles/rust-async` });
    expect(urls(kept.body)).toContain(`${site.url}/other-rust`);
  });

  it('applies domain, date and text filters', async () => {
    const source = `${site.url}/articles/rust-async`;
    expect(urls((await similar({ url: source, includeDomains: ['example.org'] })).body)).toEqual([
      'https://docs.example.org/async-book',
    ]);
    expect(urls((await similar({ url: source, excludeDomains: ['example.org'] })).body)).not.toContain(
      'https://docs.example.org/async-book',
    );
    expect(urls((await similar({ url: source, startPublishedDate: '2024-01-01' })).body)).toEqual([
      'https://blog.example.com/futures',
    ]);
    expect(urls((await similar({ url: source, includeText: ['quantum chromodynamics'] })).body)).toEqual([]);
    expect(urls((await similar({ url: source, includeText: ['wakers and polling'] })).body)).toEqual([
      'https://docs.example.org/async-book',
    ]);
    expect(urls((await similar({ url: source, excludeText: ['executor polls it'] })).body)).not.toContain(
      'https://blog.example.com/futures',
    );
  });

  it('answers an unreadable URL with 400 naming the url field, the URL and why', async () => {
    const res = await similar({ url: `${site.url}/missing` });
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('FETCH_DOCUMENT_ERROR');
    expect(res.body.error).toBe(
      `url: "${site.url}/missing" could not be read to find pages like it: CRAWL_NOT_FOUND (127.0.0.1:${site.port} answered 404)`,
    );
  });

  it('answers an unreachable .invalid URL with 400, not a 5xx', async () => {
    // `.invalid` never resolves: answered as getaddrinfo answers it, without asking a name server
    const realLookup = dns.lookup;
    const lookup = vi.spyOn(dns, 'lookup').mockImplementation(((
      host: string,
      options: unknown,
      callback: (...a: unknown[]) => void,
    ) => {
      // prettier-ignore
      if (!host.endsWith('.invalid')) return (realLookup as (...a: unknown[]) => void)(host, options, callback);
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
      process.nextTick(() => callback(err));
    }) as typeof dns.lookup);
    const res = await similar({ url: 'https://no-such-host.trawl-test.invalid/page' }).finally(() => lookup.mockRestore()); // prettier-ignore
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('FETCH_DOCUMENT_ERROR');
    expect(res.body.error).toMatch(/^url: "https:\/\/no-such-host\.trawl-test\.invalid\/page" could not be read to find pages like it: CRAWL_NOT_FOUND \(.*DNS name not found/); // prettier-ignore
  });

  it('answers the MCP find_similar tool with 1,500 characters of page text by default, fenced', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.key}` } },
    });
    const client = new Client({ name: 'similar-test', version: '1.0.0' });
    await client.connect(transport);
    const args = { url: `${site.url}/articles/rust-async`, numResults: 2 };
    const res = (await client.callTool({ name: 'find_similar', arguments: args })) as ToolResult;
    await client.close();
    expect(res.isError).toBeFalsy();
    const rest = await similar({ ...args, contents: { text: { maxCharacters: 1500 } } });
    const results = rest.body.results as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(results).toHaveLength(2);
    expect(outsideFences(textOf(res))).toBe('2 similar pages\n\n[1]\n<fence>\n\n[2]\n<fence>');
    expect(fenced(textOf(res))).toEqual(results.map((r) => ({ source: r.url, content: pageLines(r) })));
    expect(textOf(res)).toContain('Text:\n');
    expect(res.structuredContent!.results).toEqual(results.map(entryOf));
  });
});
