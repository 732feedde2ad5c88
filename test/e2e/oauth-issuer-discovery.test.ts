/**
 * How the resource server reaches an external issuer (TRAWL_AUTH_ISSUER): RFC 8414 metadata at the
 * well-known path before the issuer's path, the issuer's own (loopback) host trusted as configured, any
 * other host its metadata names only through the SSRF guard, a metadata document naming another issuer
 * refused, and a key set over the size cap refused. Loopback issuers served by node:http; tokens signed
 * in the test with the key the issuer publishes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';

const PATH = '/realms/acme';

/** A loopback server answering `routes` (path → JSON body), 404 otherwise. */
async function jsonServer(routes: (base: string) => Record<string, unknown>) {
  let base = '';
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    const body = routes(base)[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(body === undefined ? '{}' : typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, served, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
let jwk: JWK;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** An app trusting `issuer`, closed after the file. */
function appFor(issuer: string): TestApp {
  const t = makeTestApp({ authIssuer: issuer, publicUrl: 'https://trawl.example' });
  closers.push(() => t.close());
  return t;
}

const sign = (issuer: string, claims: Record<string, unknown> = {}, typ = 'at+jwt') =>
  new SignJWT({ scope: 'search', trawl_team: 'default', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ })
    .setIssuer(issuer)
    .setSubject('person-1')
    .setAudience('https://trawl.example/mcp')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);

describe('an external issuer with a path', () => {
  it('is discovered by RFC 8414 metadata (well-known part first) and its keys fetched from its own loopback host', async () => {
    const idp = await jsonServer((base) => ({
      [`/.well-known/oauth-authorization-server${PATH}`]: {
        issuer: `${base}${PATH}`,
        jwks_uri: `${base}${PATH}/certs`,
      },
      [`${PATH}/certs`]: { keys: [jwk] },
    }));
    closers.push(idp.close);
    const t = appFor(`${idp.base}${PATH}`);
    const caller = await t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`), 'mcp');
    expect(caller).toMatchObject({ teamId: 'team_default', scopes: ['search'], keyName: expect.stringMatching(/^oauth: person-1@127\.0\.0\.1/) }); // prettier-ignore
    expect(idp.served).toEqual([`/.well-known/oauth-authorization-server${PATH}`, `${PATH}/certs`]);
    // Keycloak and Entra type their access tokens "JWT"; an ID token or another type is no access token
    await expect(t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`, {}, 'JWT'), 'mcp')).resolves.toMatchObject({ scopes: ['search'] }); // prettier-ignore
    for (const [claims, typ] of [
      [{ nonce: 'n' }, 'JWT'],
      [{ typ: 'ID' }, 'JWT'],
      [{}, 'logout+jwt'],
    ] as const) {
      await expect(t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`, claims, typ), 'mcp')).rejects.toThrow(/ID token|not an access token/); // prettier-ignore
    }
    // the REST resource is another audience
    await expect(t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`), 'rest')).rejects.toThrow(
      /not for this resource/,
    );
  });

  it('takes an issuer ending with a slash (Auth0) as it is: metadata at the root, `iss` compared exactly', async () => {
    const idp = await jsonServer((base) => ({
      '/.well-known/oauth-authorization-server': { issuer: `${base}/`, jwks_uri: `${base}/.well-known/jwks.json` },
      '/.well-known/jwks.json': { keys: [jwk] },
    }));
    closers.push(idp.close);
    const t = appFor(`${idp.base}/`);
    await expect(t.app.auth.verifyToken(await sign(`${idp.base}/`), 'mcp')).resolves.toMatchObject({ scopes: ['search'] }); // prettier-ignore
    await expect(t.app.auth.verifyToken(await sign(idp.base), 'mcp')).rejects.toThrow(/not trusted/);
  });

  it('falls back to the OpenID configuration, and refuses metadata that names another issuer', async () => {
    const idp = await jsonServer((base) => ({
      [`${PATH}/.well-known/openid-configuration`]: {
        issuer: `${base}/realms/other`,
        jwks_uri: `${base}${PATH}/certs`,
      },
      [`${PATH}/certs`]: { keys: [jwk] },
    }));
    closers.push(idp.close);
    const t = appFor(`${idp.base}${PATH}`);
    const err = await t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`), 'mcp').catch((e: unknown) => e);
    expect(err).toMatchObject({ tag: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/no usable metadata.*its issuer is/) }); // prettier-ignore
    expect(idp.served).toContain(`${PATH}/.well-known/openid-configuration`);
    expect(idp.served).not.toContain(`${PATH}/certs`);
  });
});

describe('an issuer that is down', () => {
  it('is asked again only after a short back-off, however many tokens arrive', async () => {
    const idp = await jsonServer(() => ({}));
    closers.push(idp.close);
    const t = appFor(idp.base);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => sign(idp.base)));
    const errors = await Promise.all(
      tokens.map((token) => t.app.auth.verifyToken(token, 'mcp').catch((e: unknown) => e)),
    );
    for (const err of errors) expect(err).toMatchObject({ tag: 'SERVICE_UNAVAILABLE' });
    // one discovery (both metadata paths), not one per token
    expect(idp.served).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  });
});

describe('the SSRF guard and the size cap', () => {
  it('refuses a key set on a private host other than the issuer’s', async () => {
    const other = await jsonServer(() => ({ '/certs': { keys: [jwk] } }));
    closers.push(other.close);
    const idp = await jsonServer((base) => ({
      '/.well-known/oauth-authorization-server': { issuer: base, jwks_uri: `${other.base}/certs` },
    }));
    closers.push(idp.close);
    const t = appFor(idp.base);
    const err = await t.app.auth.verifyToken(await sign(idp.base), 'mcp').catch((e: unknown) => e);
    expect(err).toMatchObject({ tag: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/private-network policy/) }); // prettier-ignore
    expect(other.served).toEqual([]);
  });

  it('refuses a key set larger than the cap', async () => {
    const huge = JSON.stringify({ keys: [jwk], padding: 'x'.repeat(300 * 1024) });
    const idp = await jsonServer((base) => ({
      '/.well-known/oauth-authorization-server': { issuer: base, jwks_uri: `${base}/certs` },
      '/certs': huge,
    }));
    closers.push(idp.close);
    const t = appFor(idp.base);
    const err = await t.app.auth.verifyToken(await sign(idp.base), 'mcp').catch((e: unknown) => e);
    expect(err).toMatchObject({ tag: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/cap|large/i) });
  });
});
