/**
 * Issue 20, problem 2, replayed as a new user would: URLs that cannot be read, through the real REST door
 * and the MCP tool. Each failed status keeps the spec's `error` (`tag` and `httpStatusCode`, nothing
 * else) and says the cause beside it in `message`: DNS name not found, connection refused, TLS error
 * with its reason, which time-out and its limit, the size cap and its setting, the private-network
 * policy and the setting that lifts it, robots.txt, the site's HTTP status. A page read but poorer than
 * asked says how.
 *
 * The resolver of this machine asks a name server over the network even for `.invalid` names, so the
 * DNS case stubs `dns.lookup` (a Node built-in, not Trawl's code) to fail such names as getaddrinfo
 * does, and asserts that no `.invalid` name reached the real resolver; the error mapping itself is
 * unit-tested in test/unit/fetch/fetch-errors.test.ts.
 */
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postJson, ROOT, startTestServer, type TestServer } from '../helpers/app.js';
import { connectMcp, outsideFences, textOf, type ToolResult } from '../helpers/mcp.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Status {
  id: string;
  status: string;
  source?: string;
  error?: { tag: string; httpStatusCode: number | null };
  message?: string;
}

const page = (title: string, body = '') =>
  `<!doctype html><title>${title}</title><main><h1>${title}</h1><p>${title} explained in a sentence or two for the reader.</p>${body}</main>`;
const CAP = 64 * 1024;

let flaky = 'ok';
/** The fixture site: a page, its failures, a slow route, a page over the cap, robots.txt. */
const routes: Record<string, (res: http.ServerResponse) => void> = {
  '/robots.txt': (res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/'),
  '/ok': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Pools')),
  '/with-links': (res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(page('Guide', '<a href="/ok">ok</a> <a href="/missing">gone</a>')), // prettier-ignore
  '/forbidden': (res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('no'),
  '/broken': (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('oops'),
  '/big': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Big', 'x'.repeat(CAP * 2))),
  '/slow': (res) => void setTimeout(() => res.writeHead(200).end(page('Slow')), 3000).unref(),
  '/private/page': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Private')),
  '/flaky': (res) =>
    flaky === 'ok'
      ? res.writeHead(200, { 'content-type': 'text/html' }).end(page('Flaky'))
      : res.writeHead(404, { 'content-type': 'text/plain' }).end('gone'),
};

const servers: (http.Server | https.Server)[] = [];
const listen = async (s: http.Server | https.Server) => {
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return (s.address() as AddressInfo).port;
};

let site = '';
let tlsSite = '';
let refused = '';
let t: TestServer;
let strict: TestServer;
/** Host names the real resolver was asked for. */
const resolved: string[] = [];

beforeAll(async () => {
  const handler: http.RequestListener = (req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (route) route(res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
  site = `http://127.0.0.1:${await listen(http.createServer(handler))}`;
  const tls = path.join(ROOT, 'test/fixtures/tls');
  const cert = { key: fs.readFileSync(path.join(tls, 'self-signed.key')), cert: fs.readFileSync(path.join(tls, 'self-signed.crt')) }; // prettier-ignore
  tlsSite = `https://127.0.0.1:${await listen(https.createServer(cert, handler))}`;
  // a port with nothing listening: bound, then released
  const gone = http.createServer();
  const port = await listen(gone);
  await new Promise((resolve) => gone.close(resolve));
  refused = `http://127.0.0.1:${port}`;
  // `.invalid` (RFC 2606) never resolves: answered here as getaddrinfo answers it, without the network
  const realLookup = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((host: string, options: unknown, callback: (...a: unknown[]) => void) => {
    if (!host.endsWith('.invalid')) {
      resolved.push(host);
      return (realLookup as (...a: unknown[]) => void)(host, options, callback);
    }
    const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo', hostname: host }); // prettier-ignore
    process.nextTick(() => callback(err));
  }) as typeof dns.lookup);
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'], fetchMaxBytes: CAP });
  strict = await startTestServer();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await t?.close();
  await strict?.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

async function contents(server: TestServer, body: Record<string, unknown>): Promise<{ raw: Json; statuses: Status[] }> {
  const res = await postJson(server.url, '/contents', body, { 'x-api-key': server.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { raw: res.body, statuses: res.body.statuses as Status[] };
}

describe('a failed URL says why, beside the spec’s error', () => {
  const cases = (): [string, string, number | null, RegExp][] => [
    [`${site}/missing`, 'CRAWL_NOT_FOUND', 404, /answered 404$/],
    [`${site}/forbidden`, 'CRAWL_HTTP_ERROR', 403, /answered 403$/],
    [`${site}/broken`, 'SOURCE_NOT_AVAILABLE', 500, /answered 500$/],
    [`${site}/big`, 'CRAWL_TOO_LARGE', null, /too large: the body is larger than the 65536-byte cap \(64 KiB, TRAWL_FETCH_MAX_BYTES\)/], // prettier-ignore
    [`${site}/private/page`, 'CRAWL_ROBOTS_DISALLOWED', null, /^disallowed by robots\.txt: "http:\/\/127\.0\.0\.1:\d+\/robots\.txt" does not let Trawl's user agent fetch "http:\/\/127\.0\.0\.1:\d+\/private\/page"$/], // prettier-ignore
    [`${refused}/page`, 'SOURCE_NOT_AVAILABLE', null, /connection refused: the site is not reachable .*\(ECONNREFUSED\)/], // prettier-ignore
    [`${tlsSite}/ok`, 'CRAWL_UNKNOWN_ERROR', null, /TLS error: the certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/], // prettier-ignore
    ['http://no-such-host.trawl-test.invalid/docs', 'CRAWL_NOT_FOUND', null, /^no-such-host\.trawl-test\.invalid: DNS name not found: the host name does not resolve \(ENOTFOUND\)/], // prettier-ignore
  ];

  it('over REST: unreachable host, refused, TLS, too large, robots.txt and HTTP statuses, each named', async () => {
    const all = cases();
    const { raw, statuses } = await contents(t, { urls: [`${site}/ok`, ...all.map(([url]) => url)], text: true });
    expect(Object.keys(raw).sort()).toEqual(['costDollars', 'requestId', 'results', 'searchTime', 'statuses']);
    expect(statuses[0]).toEqual({ id: `${site}/ok`, status: 'success', source: 'crawled' });
    all.forEach(([url, tag, httpStatusCode, message], i) => {
      const s = statuses[i + 1]!;
      expect(s, url).toEqual({ id: url, status: 'error', error: { tag, httpStatusCode }, message: expect.stringMatching(message) }); // prettier-ignore
    });
    expect(resolved.filter((h) => h.endsWith('.invalid'))).toEqual([]);
  });

  it('over MCP: the same cause on each failure line of get_contents, before what to do', async () => {
    const client = await connectMcp(t.app);
    try {
      const urls = cases().map(([url]) => url);
      const res = (await client.callTool({ name: 'get_contents', arguments: { urls } })) as ToolResult;
      expect(res.isError ?? false).toBe(false);
      const text = outsideFences(textOf(res));
      expect(text).toContain(`Could not read ${urls.length} of ${urls.length}:`);
      const lineOf = (id: string) => text.split('\n').find((l) => l.startsWith(`- ${id}: `))!;
      for (const s of res.structuredContent?.statuses as Status[]) {
        expect(lineOf(s.id), s.id).toContain(`${s.error!.tag}`);
        expect(lineOf(s.id), s.id).toContain(`: ${s.message!} — `);
      }
      // one tag, two causes, two remedies: a 404 is a missing page; a name that does not resolve is a
      // misspelled host or a server without DNS (offline, firewalled), never "the page does not exist"
      expect(lineOf(`${site}/missing`)).toMatch(/— the page does not exist; check the URL$/);
      const dns = lineOf('http://no-such-host.trawl-test.invalid/docs');
      expect(dns).toMatch(/— the host name did not resolve: check its spelling; if every site fails so, this server has no working DNS \(offline, or behind a firewall\)$/); // prettier-ignore
      expect(dns).not.toContain('does not exist');
    } finally {
      await client.close();
    }
  });

  it('names the time-out that fired and its limit', async () => {
    const { statuses } = await contents(t, { urls: [`${site}/slow`], livecrawlTimeout: 500 });
    expect(statuses[0]).toEqual({
      id: `${site}/slow`,
      status: 'error',
      error: { tag: 'CRAWL_LIVECRAWL_TIMEOUT', httpStatusCode: null },
      message: expect.stringMatching(/time-out: the whole fetch took longer than its 500 ms limit$/),
    });
  });

  it('names the private-network policy and the setting that lifts it', async () => {
    const { statuses } = await contents(strict, { urls: [`${site}/ok`] });
    expect(statuses[0]!.error).toEqual({ tag: 'CRAWL_PRIVATE_ADDRESS', httpStatusCode: null });
    expect(statuses[0]!.message).toMatch(
      /^127\.0\.0\.1 is a loopback address: refused by the private-network policy, .*TRAWL_ALLOW_PRIVATE_NETWORK=true \(flag --allow-private-network\).*TRAWL_PRIVATE_ALLOWLIST/,
    );
  });
});

describe('a page read but poorer than asked says how in its status message', () => {
  it('names the subpages that could not be read', async () => {
    const { statuses, raw } = await contents(t, { urls: [`${site}/with-links`], subpages: 2 });
    expect((raw.results as Json[])[0]!.subpages.map((s: Json) => s.url)).toEqual([`${site}/ok`]);
    expect(statuses[0]).toMatchObject({ status: 'success', source: 'crawled' });
    expect(statuses[0]!.message).toMatch(/^1 subpage\(s\) could not be read: "http:\/\/127\.0\.0\.1:\d+\/missing": .*answered 404\.$/); // prettier-ignore
  });

  it('says when a cached copy stands in for a live fetch that failed', async () => {
    flaky = 'ok';
    await contents(t, { urls: [`${site}/flaky`] });
    flaky = 'gone';
    const { statuses } = await contents(t, { urls: [`${site}/flaky`], livecrawl: 'preferred' });
    expect(statuses[0]).toMatchObject({ status: 'success', source: 'cached' });
    expect(statuses[0]!.message).toMatch(/^The live fetch failed \(CRAWL_NOT_FOUND: .*answered 404\); this is the cached copy of \d{4}-/); // prettier-ignore
  });
});
