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

const sign = (issuer: string) =>
  new SignJWT({ scope: 'search', trawl_team: 'default' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
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
    // the REST resource is another audience
    await expect(t.app.auth.verifyToken(await sign(`${idp.base}${PATH}`), 'rest')).rejects.toThrow(
      /not for this resource/,
    );
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
