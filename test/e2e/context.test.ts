/**
 * /context through the real REST door and the `get_code_context` tool through the SDK's real Client:
 * snippets from the code index, ranked, within the budget as gpt-tokenizer counts it, with the spec's
 * response fields; over MCP the response fenced in the text and the other fields as structured content.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChunkRecord } from '../../src/core/code/index/code-index.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { connectMcp, fenced, outsideFences, recordOf, textOf, type ToolResult } from '../helpers/mcp.js';

const chunk = (over: Partial<ChunkRecord> & Pick<ChunkRecord, 'path' | 'code'>): ChunkRecord => ({
  source: 'http-lib',
  startLine: 1,
  endLine: over.code.split('\n').length,
  language: 'typescript',
  kind: 'function',
  symbol: null,
  doc: null,
  ...over,
});

const CHUNKS: ChunkRecord[] = [
  chunk({ path: 'src/stream.ts', symbol: 'streamResponse', doc: 'Stream a response body to a writable, chunk by chunk.', code: 'export async function streamResponse(res: Response, out: Writable) {\n  for await (const chunk of res.body) out.write(chunk);\n  out.end();\n}' }), // prettier-ignore
  chunk({ path: 'src/pool.ts', symbol: 'Pool.request', doc: 'Send a request on a pooled connection.', code: 'request(opts: RequestOptions) {\n  const socket = this.acquire(opts.origin);\n  return socket.dispatch(opts);\n}' }), // prettier-ignore
  chunk({ path: 'py/stream.py', language: 'python', symbol: 'stream_response', doc: 'Stream a response to a file.', code: 'def stream_response(resp, out):\n    for chunk in resp.iter_content(8192):\n        out.write(chunk)' }), // prettier-ignore
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const c of CHUNKS) t.app.services.code.replaceFile(c.source, c.path, [c], `h:${c.path}`, Date.now());
});
afterAll(() => t.close());

const context = (body: Record<string, unknown>) => postJson(t.url, '/context', body, { 'x-api-key': t.key });

describe('POST /context', () => {
  it('answers the spec fields with the best snippets first, within the budget', async () => {
    const res = await context({ query: 'how do I stream a response body', tokensNum: 2000 });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(Object.keys(body).sort()).toEqual(['costDollars', 'outputTokens', 'query', 'requestId', 'response', 'resultsCount', 'searchTime', 'sources']); // prettier-ignore
    expect(body.query).toBe('how do I stream a response body');
    expect(body.response).toMatch(/^## streamResponse — http-lib\/src\/stream\.ts:1-4\n/);
    expect(body.response).toContain('```typescript\nexport async function streamResponse');
    expect(body.outputTokens).toBe(countTokens(body.response));
    expect(body.outputTokens).toBeLessThanOrEqual(2000);
    expect(body.resultsCount).toBe(body.sources.length);
    expect(body.costDollars).toEqual({ total: 0.005, search: { neural: 0.005 } });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('prefers the language the query names', async () => {
    const res = await context({ query: 'stream a response in python' });
    expect((res.body.sources as { language: string }[])[0]!.language).toBe('python');
  });

  it('holds tight budgets, and answers an empty response when nothing matches', async () => {
    for (const tokensNum of [50, 120, 300]) {
      const res = await context({ query: 'stream response', tokensNum });
      expect(res.body.outputTokens as number).toBeLessThanOrEqual(tokensNum);
    }
    const none = await context({ query: 'kubernetes helm chart values' });
    expect(none.body).toMatchObject({ response: '', resultsCount: 0, outputTokens: 0 });
  });

  it('rejects a budget or query outside the limits with the field at fault', async () => {
    for (const body of [
      { query: 'x', tokensNum: 49 },
      { query: 'x', tokensNum: 100001 },
      { query: 'x', tokensNum: 'auto' },
      { query: '' },
      { query: 'x'.repeat(2001) },
    ]) {
      // prettier-ignore
      const res = await context(body);
      expect(res.status).toBe(400);
      expect(String(res.body.error)).toMatch(/tokensNum|query/);
    }
  });
});

describe('code examples of stored pages', () => {
  const page = (text: string) => storedDoc('https://docs.example.com/undici/streams', 'Streams in undici', text);

  it('are in /context as soon as the page is stored, with their prose, and follow the page when it changes', async () => {
    const { documents } = t.app.services;
    await documents.upsert(page('# Streams\n\nTo pipe a body into a file, use `pipeline`:\n\n```js\nawait pipeline(res.body, fs.createWriteStream(dest));\nconsole.log("saved");\n```\n'), '2026-11-23T10:00:00.000Z'); // prettier-ignore
    const res = await context({ query: 'pipe response body into a file', tokensNum: 1000 });
    expect(res.body.response).toMatch(/^## Streams — https:\/\/docs\.example\.com\/undici\/streams\nTo pipe a body into a file, use `pipeline`:\n```javascript\nawait pipeline\(res\.body/); // prettier-ignore
    expect((res.body.sources as { location: string }[])[0]!.location).toBe('https://docs.example.com/undici/streams');

    await documents.upsert(page('# Streams\n\nNo examples any more.'), '2026-11-23T11:00:00.000Z');
    const after = await context({ query: 'pipe response body into a file', tokensNum: 1000 });
    expect(after.body.sources as { location: string }[]).not.toContainEqual(expect.objectContaining({ location: 'https://docs.example.com/undici/streams' })); // prettier-ignore
  });
});

describe('get_code_context tool', () => {
  it('returns the formatted snippets as fenced text, and the REST fields but the response and sources as structured content', async () => {
    const client = await connectMcp(t.app);
    const args = { query: 'pooled connection request', tokensNum: 1000 };
    const res = (await client.callTool({ name: 'get_code_context', arguments: args })) as ToolResult;
    await client.close();
    expect(res.isError).toBeFalsy();
    const rest = (await context(args)).body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(rest.response).toMatch(/^## Pool\.request — http-lib\/src\/pool\.ts:1-4/);
    // the response once, fenced as the code index's; each snippet's header names its location
    expect(outsideFences(textOf(res))).toBe(`Code context (${rest.resultsCount} snippets):\n\n<fence>`);
    expect(fenced(textOf(res))).toEqual([{ source: 'code index', content: rest.response }]);
    const { response: _response, sources: _sources, requestId: _id, searchTime: _time, ...fields } = rest;
    expect(recordOf(res)).toEqual({ ...fields, requestId: expect.stringMatching(/^[0-9a-f]{32}$/), searchTime: expect.any(Number) }); // prettier-ignore
  });

  it("reads numbers sent as strings (as MCP Inspector's CLI sends them) as the numbers they spell; REST keeps the spec's types", async () => {
    const client = await connectMcp(t.app);
    try {
      const asText = (await client.callTool({ name: 'get_code_context', arguments: { query: 'pooled connection request', tokensNum: '300' } })) as ToolResult; // prettier-ignore
      const asNumber = (await client.callTool({ name: 'get_code_context', arguments: { query: 'pooled connection request', tokensNum: 300 } })) as ToolResult; // prettier-ignore
      expect(asText.isError).toBeFalsy();
      expect(fenced(textOf(asText))).toEqual(fenced(textOf(asNumber)));
      expect(recordOf(asText).outputTokens as number).toBeLessThanOrEqual(300);
      // "dynamic" stays the word; a number out of range, or a word, is still refused naming the field
      expect(((await client.callTool({ name: 'get_code_context', arguments: { query: 'x', tokensNum: 'dynamic' } })) as ToolResult).isError).toBeFalsy(); // prettier-ignore
      for (const tokensNum of ['49', '3e5', 'auto', ' 300', '0x12c']) {
        const refused = (await client.callTool({ name: 'get_code_context', arguments: { query: 'x', tokensNum } })) as ToolResult; // prettier-ignore
        expect(refused.isError, tokensNum).toBe(true);
        expect(textOf(refused)).toMatch(/tokensNum/);
      }
    } finally {
      await client.close();
    }
    const rest = await context({ query: 'x', tokensNum: '300' });
    expect(rest.status).toBe(400);
    expect(String(rest.body.error)).toMatch(/tokensNum/);
  });
});
