/**
 * Local use never meets the limiter by accident (issue 20): with the default settings, one client
 * sending requests one after another as fast as it can is never refused — over REST, through exa-js,
 * and over MCP, where the handshake's messages do not count — while a burst of concurrent requests
 * beyond the per-key in-flight limit is refused with 429 and Retry-After, and let in again once they end.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Exa } from 'exa-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';

let t: TestServer;
let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
  // the defaults, not the test helper's "no limit"
  t = await startTestServer({ rateLimitQps: undefined, allowPrivateNetwork: true });
  const docs = Array.from({ length: 20 }, (_, i) => storedDoc(`https://docs.example.com/pools/${i}`, `Pools ${i}`, `Connection pools keep sockets warm, note ${i}.`)); // prettier-ignore
  await t.app.services.documents.upsertMany(docs, docs[0]!.fetchedAt);
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe('the default limits', () => {
  it('are no request rate and 8 requests in flight per key', () => {
    expect(t.app.config.rateLimitQps).toBe(0);
    expect(t.app.config.rateLimitConcurrency).toBe(8);
    expect(t.app.config.agentConcurrency).toBe(2);
  });

  it('never refuse one REST client sending 60 searches one after another', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      statuses.push((await postJson(t.url, '/search', { query: `connection pools ${i}` }, { 'x-api-key': t.key })).status); // prettier-ignore
    }
    expect(statuses).toEqual(new Array(60).fill(200));
  });

  it('never refuse an exa-js script making 30 calls in a row', async () => {
    const exa = new Exa(t.key, t.url);
    for (let i = 0; i < 30; i++) expect((await exa.search(`connection pools ${i}`, { numResults: 3 })).results.length).toBeGreaterThan(0); // prettier-ignore
  });

  it('never refuse an MCP client: the handshake does not count, 40 tool calls in a row pass', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { 'x-api-key': t.key } } }); // prettier-ignore
    const client = new Client({ name: 'rate-defaults', version: '1' });
    await client.connect(transport);
    for (let i = 0; i < 40; i++) {
      const res = (await client.callTool({ name: 'search', arguments: { query: `pools ${i}`, numResults: 2 } })) as { isError?: boolean }; // prettier-ignore
      expect(res.isError).toBeFalsy();
    }
    await client.close();
  });

  it('refuse a burst beyond 8 in flight with 429 and Retry-After, and let the key in again after', async () => {
    // each request reads a page that takes a second to arrive, so the burst is in flight at once
    site.setPage('/slow-page', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><main><p>Slow page.</p></main></body></html>'), 1000); // prettier-ignore
    });
    const read = (i: number) => postJson(t.url, '/contents', { urls: [`${site.url}/slow-page?i=${i}`], text: true }, { 'x-api-key': t.key }); // prettier-ignore
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => read(i)));
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(8);
    expect(refused).toHaveLength(4);
    for (const r of refused) {
      expect(r.body).toMatchObject({ tag: 'RATE_LIMIT_EXCEEDED', error: expect.stringMatching(/has 8 requests in flight.*retry in 1 s$/) }); // prettier-ignore
      expect(r.headers.get('retry-after')).toBe('1');
    }
    // every slot was given back: eight can be taken again
    const caller = (await t.app.services.keys.verify(t.key))!;
    const entries = await Promise.all(Array.from({ length: 8 }, () => t.app.services.accounts.enterRequest(caller)));
    expect(entries.every((e) => e.allowed)).toBe(true);
    for (const e of entries) if (e.allowed) e.release();
  });
});
