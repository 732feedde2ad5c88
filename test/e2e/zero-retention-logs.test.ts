/**
 * Issue 32, row 10, through the real HTTP door at debug level: a zero-retention team's /contents,
 * /search, monitors and MCP calls leave no URL, host or query anywhere in the log, under any field name,
 * while their lines still say what happened (marked `zeroRetention: true`); a normal team's calls still
 * log the pages they fetched.
 */
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { callJson, startTestServer, type TestServer } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const lines: string[] = [];
let t: TestServer;
let site: FixtureSite;
let zrKey: string;

const page = (title: string) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${'Connection pools keep sockets open between requests. '.repeat(20)}</p></main></body></html>`; // prettier-ignore

/** The log lines written while `act` ran, parsed. */
async function logged(act: () => Promise<unknown>): Promise<{ text: string; entries: Json[] }> {
  const from = lines.length;
  await act();
  const text = lines.slice(from).join('');
  return {
    text,
    entries: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json),
  };
}

/** An MCP client over the HTTP door with `key`. */
async function mcp(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'zero-retention-logs', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  site = await startFixtureSite();
  for (const path of ['/zr/page', '/zr/mcp-page', '/normal/page']) site.setPage(path, page(`Title of ${path}`));
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await startTestServer({ allowPrivateNetwork: true }, { logger: createLogger('debug', stream) });
  const team = await t.app.services.accounts.teams.create('private', { zeroRetention: true }, null);
  zrKey = (await t.app.services.keys.create('zr', { teamId: team.id }, null)).key;
});
afterAll(async () => {
  await t.close();
  await site.close();
});

describe('a zero-retention team at debug level', () => {
  it('logs no URL, host or query of its /contents, /search, monitors and MCP calls, under any field', async () => {
    const { text, entries } = await logged(async () => {
      const contents = await callJson(t.url, zrKey, 'POST', '/contents', {
        urls: [`${site.url}/zr/page?token=zr-query-token`, `${site.url}/zr/missing`, 'https://zr-private.invalid/x'],
        text: true,
      });
      expect(contents.status).toBe(200);
      expect(contents.body.results).toHaveLength(1); // the page was fetched and read
      expect((await callJson(t.url, zrKey, 'POST', '/search', { query: 'zr-search-phrase pools' })).status).toBe(200); // prettier-ignore
      const monitor = await callJson(t.url, zrKey, 'POST', '/monitors', {
        search: { query: 'zr-monitor-phrase' },
        webhook: { url: 'https://zr-hook.example.com/hook' },
      });
      expect(monitor.status).toBe(403);
      expect((await callJson(t.url, zrKey, 'GET', '/monitors/mon_zrunknown')).status).toBe(404);
      const client = await mcp(zrKey);
      try {
        const fetched = await client.callTool({ name: 'get_contents', arguments: { urls: [`${site.url}/zr/mcp-page`] } }); // prettier-ignore
        expect(fetched.isError).toBeFalsy();
        await client.callTool({ name: 'search', arguments: { query: 'zr-mcp-phrase pools' } });
      } finally {
        await client.close();
      }
    });
    expect(site.hits('/zr/page?token=zr-query-token')).toBe(1);
    expect(site.hits('/zr/mcp-page')).toBe(1);
    for (const secret of [
      `127.0.0.1:${site.port}`,
      '/zr/',
      'zr-query-token',
      'zr-search-phrase',
      'zr-private',
      'zr-monitor-phrase',
      'zr-hook',
      'zr-mcp-phrase',
      'http://',
      'https://',
    ])
      // prettier-ignore
      expect(text, secret).not.toContain(secret);
    // the lines are still there, content-free: the fetches (debug), and the calls' outcomes
    const marked = entries.filter((e) => e.zeroRetention === true);
    expect(marked.map((e) => e.msg)).toEqual(expect.arrayContaining(['fetched', 'page fetched', 'content fetch failed', 'tool call'])); // prettier-ignore
    expect(marked.find((e) => e.msg === 'content fetch failed')).toMatchObject({ tag: 'CRAWL_NOT_FOUND' });
    expect(entries.find((e) => e.msg === 'request' && e.route === '/contents')).toMatchObject({
      zeroRetention: true,
      method: 'POST',
      status: 200,
    });
  });

  it('while a normal team’s same calls still log the pages they fetched', async () => {
    const { text, entries } = await logged(async () => {
      const contents = await callJson(t.url, t.key, 'POST', '/contents', { urls: [`${site.url}/normal/page`] });
      expect(contents.status).toBe(200);
    });
    expect(text).toContain(`${site.url}/normal/page`);
    expect(entries.find((e) => e.msg === 'page fetched')).toMatchObject({ url: `${site.url}/normal/page` });
    expect(entries.some((e) => e.zeroRetention)).toBe(false);
  });
});
