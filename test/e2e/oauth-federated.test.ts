/**
 * "Sign in with your organisation" (TRAWL_OIDC_ISSUER): an OpenID Connect issuer (oidc-provider with its
 * development login pages, in this process on loopback, named `localhost` so its cookies are not
 * Trawl's) stands in for the organisation's identity provider. In headless Chromium the person chooses
 * it on Trawl's sign-in page, signs in there, comes back, consents on Trawl's page, and the client's
 * token stands for the key the identity rule gave them (their email's domain → team). A person of no
 * team is refused.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig, type ConfigFlags } from '../../src/config/config.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { captureLogs } from '../helpers/log-capture.js';
import { authorizationUrl, pkcePair, tokenCall } from '../helpers/oauth.js';

const CHROMIUM = process.env.TRAWL_TEST_BROWSER ?? '/usr/bin/chromium';
const available = fs.existsSync(CHROMIUM);

const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

describe.skipIf(!available)('signing in through the organisation’s OpenID Connect issuer', () => {
  const idp = http.createServer();
  const callbacks = http.createServer((_req, res) => res.end('ok'));
  let t: TestServer;
  let browser: Browser;
  let clientId = '';
  let redirect = '';
  const logs = captureLogs();

  beforeAll(async () => {
    const idpUrl = `http://localhost:${await listen(idp)}`;
    redirect = `http://127.0.0.1:${await listen(callbacks)}/callback`;
    t = await startTestServer({
      oauth: 'on',
      oauthDcr: true,
      oidcIssuer: idpUrl,
      oidcClientId: 'trawl',
      oidcClientSecret: 'sekret-of-trawl',
      authEmailTeams: 'example.com=acme' as never,
      logLevel: 'debug',
    }, { logger: logs.logger }); // prettier-ignore
    await t.app.services.accounts.teams.create('acme', {}, null);
    const provider = new Provider(idpUrl, {
      clients: [{ client_id: 'trawl', client_secret: 'sekret-of-trawl', redirect_uris: [`${t.url}/oauth/federated/callback`] }], // prettier-ignore
      cookies: { keys: ['idp-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      findAccount: (_ctx, sub) => ({
        accountId: sub,
        claims: () => ({
          sub,
          email: `${sub}@${sub === 'eve' ? 'elsewhere.org' : 'example.com'}`,
          email_verified: true,
        }),
      }),
      // the email in the ID token itself, as Keycloak, Entra and Google put it (Trawl reads the ID token)
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: true } },
    });
    idp.on('request', provider.callback());
    const reg = await fetch(`${t.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Federated Test', redirect_uris: [redirect], application_type: 'native' }),
    });
    clientId = ((await reg.json()) as { client_id: string }).client_id;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    idp.close();
    callbacks.close();
  });

  /** Walks the authorization in Chromium as `login` at the issuer: the page it ends on. */
  async function signInAs(login: string, challenge: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl({ base: t.url, clientId, redirectUri: redirect, key: '', scope: 'search', challenge })); // prettier-ignore
    await page.click('#federated');
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    await page.click('button[type=submit]'); // the issuer's consent
    await page.waitForLoadState();
    return { page, context };
  }

  it('signs a person in at the issuer and issues a token for the key of their team', async () => {
    const { verifier, challenge } = pkcePair();
    const { page, context } = await signInAs('dana', challenge);
    expect(await page.textContent('body')).toContain('oauth: dana@example.com');
    const back = page.waitForRequest((r) => r.url().startsWith(redirect));
    await page.click('button[value=allow]');
    const code = new URL((await back).url()).searchParams.get('code')!;
    await context.close();
    const token = await tokenCall(t.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirect, client_id: clientId }); // prettier-ignore
    expect(token.status).toBe(200);
    const claims = JSON.parse(Buffer.from(token.body.access_token.split('.')[1], 'base64url').toString()) as { sub: string }; // prettier-ignore
    const key = (await t.app.keys.list(null)).find((k) => k.name === 'oauth: dana@example.com');
    expect(key?.id).toBe(claims.sub);
    const acme = (await t.app.services.accounts.teams.list(null)).find((team) => team.name === 'acme');
    expect(key?.teamId).toBe(acme?.id);
    // the door logged the requests, and nothing secret: no client secret, code or token
    const text = logs.text();
    expect(text).toContain('/oauth/federated/callback');
    for (const secret of ['sekret-of-trawl', code, token.body.access_token, token.body.refresh_token])
      expect(text).not.toContain(secret);
  }, 60_000);

  it('refuses a person the identity rule maps to no team', async () => {
    const { challenge } = pkcePair();
    const { page, context } = await signInAs('eve', challenge);
    expect(await page.textContent('body')).toMatch(/eve@elsewhere.org belongs to no Trawl team/);
    await context.close();
  }, 60_000);
});

describe('the organisation issuer’s settings', () => {
  it('refuses to start with TRAWL_OIDC_ISSUER but without Trawl’s client at it, naming what is missing', () => {
    const data = tempDir('trawl-oidc-settings-');
    const open = (flags: ConfigFlags) => () =>
      createApp(loadConfig({}, { dataDir: data.dir, logLevel: 'silent', ...flags }));
    try {
      expect(open({ oauth: 'on', oidcIssuer: 'https://idp.example.com' })).toThrow(
        /TRAWL_OIDC_ISSUER .* also needs TRAWL_OIDC_CLIENT_ID, TRAWL_OIDC_CLIENT_SECRET/,
      );
      expect(open({ oidcIssuer: 'https://idp.example.com', oidcClientId: 'a', oidcClientSecret: 'b' })).toThrow(/needs TRAWL_OAUTH=on/); // prettier-ignore
    } finally {
      data.cleanup();
    }
  });
});
