/**
 * The built `trawl serve` as an OAuth resource server, configured by its flags: `--auth-issuer` (an
 * oidc-provider process, the external issuer) and `--public-url` (the URL behind a proxy that names
 * the resources). Its metadata names them, and a token for that public resource calls a tool.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { serve, type ServeProcess } from '../helpers/crash.js';
import { startExternalIssuer, type ExternalIssuer, type IssuerClient } from '../helpers/external-issuer.js';

const APP: IssuerClient = { id: 'serve-app', secret: 'serve-secret-0123456789abcdef0123', team: 'default' };
const PUBLIC = 'https://trawl.example.com';

let issuer: ExternalIssuer;
let trawl: ServeProcess;
const dir = tempDir('trawl-oauth-serve-');

beforeAll(async () => {
  if (!fs.existsSync(new URL('../../dist/bin/cli.js', import.meta.url))) throw new Error('run npm run build first');
  issuer = await startExternalIssuer([APP]);
  trawl = await serve(dir.dir, ['--auth-issuer', issuer.issuer, '--public-url', `${PUBLIC}/`]);
});
afterAll(async () => {
  await trawl?.kill();
  await issuer?.close();
  dir.cleanup();
});

describe('trawl serve --auth-issuer --public-url', () => {
  it('names its resources by the public URL and serves a token minted for it', async () => {
    const doc = (await (await fetch(`${trawl.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>; // prettier-ignore
    expect(doc).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [issuer.issuer] });

    const call = async (token: string) =>
      fetch(`${trawl.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, // prettier-ignore
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } }), // prettier-ignore
      });
    const ok = await call(await issuer.token(APP, `${PUBLIC}/mcp`, 'search'));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/"result"/);
    // the listener's own address is not the resource
    const local = await call(await issuer.token(APP, `${trawl.url}/mcp`, 'search'));
    expect(local.status).toBe(401);
  });

  it('on loopback without a public URL, says at start which URL names the server to MCP clients', async () => {
    const own = tempDir('trawl-oauth-serve-loopback-');
    const local = await serve(own.dir, ['--oauth', 'on']);
    try {
      const line = () =>
        local
          .log()
          .split('\n')
          .find((l) => l.includes('OAuth names this server'));
      // written just after the "listening" line, which may reach us first
      for (let i = 0; i < 100 && !line(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const said = line();
      expect(said, local.log()).toBeDefined();
      expect(JSON.parse(said!)).toMatchObject({ level: 30, resource: `${local.url}/mcp` });
      expect(said).toContain('TRAWL_PUBLIC_URL');
    } finally {
      await local.kill();
      own.cleanup();
    }
  });
});
