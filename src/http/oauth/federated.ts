/**
 * "Sign in with your organisation" (TRAWL_OIDC_ISSUER): the sign-in step of an authorization done at the
 * organisation's OpenID Connect issuer instead of with a pasted key. Trawl is a confidential client
 * there: authorization code with PKCE S256, `state` and `nonce`, the code exchanged with HTTP Basic, the
 * ID token verified (signature against the issuer's keys, issuer, audience, expiry, nonce). The person
 * is then the key of their team that the identity rule gives (`keys.forIdentity`: the team claim or the
 * verified email's domain; made on first use, revocable like any key). The issuer's metadata and keys
 * are fetched with time and size limits: its own origin as the operator configured it (it may be
 * private), any other host through the SSRF guard.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type Provider from 'oidc-provider';
import type { Config } from '../../config/config.js';
import type { KeysService } from '../../core/accounts/keys.service.js';
import type { OAuthService } from '../../core/oauth/oauth.service.js';
import { ServiceError } from '../../errors.js';
import { DEFAULT_USER_AGENT } from '../../fetch/fetcher.js';
import { createMetadataFetch } from '../../fetch/metadata-fetch.js';
import type { Logger } from '../../lib/logger.js';
import type { HttpEnv } from '../env.js';
import { nodeObjects } from './bridge.js';
import { errorPage, PAGE_HEADERS } from './pages.js';

/** The issuer's endpoints, from its metadata. */
interface Upstream {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

export interface FederationDeps {
  config: Config;
  oauth: OAuthService;
  keys: KeysService;
  logger: Logger;
  providerOf(c: Context<HttpEnv>): Promise<Provider>;
  /** The public base URL (the callback is `<base>/oauth/federated/callback`). */
  base(): string;
  onClose(stop: () => Promise<void>): void;
}

/** A sign-in begun at the issuer lives 10 minutes. */
const STATE_TTL_SECONDS = 600;
const random = () => randomBytes(32).toString('base64url');
const page = (c: Context<HttpEnv>, title: string, message: string, status: 400 | 403 | 502) =>
  c.body(errorPage(title, message), status, PAGE_HEADERS);

export function mountFederation(hono: Hono<HttpEnv>, deps: FederationDeps): void {
  const { config } = deps;
  if (!config.oidcIssuer) return;
  const issuer = config.oidcIssuer;
  const clientId = config.oidcClientId ?? '';
  const origin = new URL(issuer).origin;
  const userAgent = config.userAgent ?? DEFAULT_USER_AGENT;
  const limits = { timeoutMs: 10_000, maxBytes: 256 * 1024, userAgent };
  const trusted = createMetadataFetch({ ...limits, guard: { allowPrivateNetwork: true, privateAllowlist: [] } });
  const guarded = createMetadataFetch({ ...limits, guard: { allowPrivateNetwork: config.allowPrivateNetwork, privateAllowlist: config.privateAllowlist } }); // prettier-ignore
  deps.onClose(async () => {
    await trusted.close();
    await guarded.close();
  });
  const fetchOf = (url: string) => (new URL(url).origin === origin ? trusted : guarded).fetch;
  const json = async (url: string, init?: Parameters<typeof trusted.fetch>[1]) => {
    const res = await fetchOf(url)(url, { headers: { accept: 'application/json' }, ...init });
    const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    return { status: res.status, body: body ?? {} };
  };

  let discovered: Promise<Upstream> | undefined;
  const upstream = () => {
    discovered ??= (async () => {
      const { status, body } = await json(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
      const m = body as Partial<Upstream>;
      if (status !== 200 || m.issuer !== issuer || !m.authorization_endpoint || !m.token_endpoint || !m.jwks_uri) {
        throw new ServiceError('SERVICE_UNAVAILABLE', `the issuer ${issuer} did not answer with its OpenID Connect metadata`); // prettier-ignore
      }
      return m as Upstream;
    })().catch((err: unknown) => {
      discovered = undefined;
      throw err;
    });
    return discovered;
  };
  const states = deps.oauth.adapter('Federation');
  const callback = () => `${deps.base()}/oauth/federated/callback`;

  /** The interaction of the request when its cookie names the uid of the path. */
  const interactionOf = async (c: Context<HttpEnv>) => {
    const provider = await deps.providerOf(c);
    const { req, res } = nodeObjects(c);
    const details = await provider.interactionDetails(req, res).catch(() => undefined);
    return details && details.uid === c.req.param('uid') ? { provider, details } : undefined;
  };

  hono.get('/oauth/interaction/:uid/federated', async (c) => {
    const found = await interactionOf(c);
    if (!found) return page(c, 'Sign-in expired', 'Start again from your application.', 400);
    const m = await upstream();
    const [state, nonce, verifier] = [random(), random(), random()];
    await states.upsert(state, { uid: found.details.uid, nonce, verifier }, STATE_TTL_SECONDS);
    const url = new URL(m.authorization_endpoint);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const params = { response_type: 'code', client_id: clientId, redirect_uri: callback(), scope: 'openid email profile', state, nonce, code_challenge: challenge, code_challenge_method: 'S256' }; // prettier-ignore
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return c.redirect(url.href, 303);
  });

  hono.get('/oauth/federated/callback', async (c) => {
    const state = c.req.query('state') ?? '';
    const begun = state ? await states.find(state) : undefined;
    if (!begun || typeof begun.uid !== 'string') return page(c, 'Sign-in expired', 'Start again from your application.', 400); // prettier-ignore
    await states.destroy(state); // one use
    if (c.req.query('error')) return page(c, 'Sign-in refused', `Your organisation refused the sign-in (${c.req.query('error')?.slice(0, 60)}).`, 403); // prettier-ignore
    const m = await upstream();
    const secret = config.oidcClientSecret ?? '';
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: c.req.query('code') ?? '', redirect_uri: callback(), code_verifier: String(begun.verifier) }); // prettier-ignore
    const token = await json(m.token_endpoint, { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` } }); // prettier-ignore
    const idToken = token.body.id_token;
    if (token.status !== 200 || typeof idToken !== 'string') {
      deps.logger.warn({ status: token.status, error: token.body.error }, 'the OIDC issuer refused the code');
      return page(c, 'Sign-in failed', 'Your organisation did not confirm the sign-in. Start again from your application.', 502); // prettier-ignore
    }
    const keys = (await json(m.jwks_uri)).body as unknown as JSONWebKeySet;
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(idToken, createLocalJWKSet(keys), { issuer: m.issuer, audience: clientId, clockTolerance: 30 })); // prettier-ignore
      if (claims.nonce !== begun.nonce || typeof claims.sub !== 'string') throw new Error('nonce or subject');
    } catch {
      return page(c, 'Sign-in failed', "Your organisation's answer could not be verified. Start again from your application.", 502); // prettier-ignore
    }
    try {
      const caller = await deps.keys.forIdentity({
        issuer: m.issuer,
        subject: claims.sub as string,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : undefined,
        claims,
      });
      await states.upsert(`done:${state}`, { uid: begun.uid, accountId: caller.keyId }, 120);
    } catch (err) {
      if (err instanceof ServiceError) return page(c, 'Not allowed', err.message, 403);
      throw err;
    }
    return c.redirect(`/oauth/interaction/${encodeURIComponent(begun.uid)}/federated/finish?state=${state}`, 303);
  });

  hono.get('/oauth/interaction/:uid/federated/finish', async (c) => {
    const found = await interactionOf(c);
    const key = `done:${c.req.query('state') ?? ''}`;
    const done = found ? await states.find(key) : undefined;
    if (!found || !done || done.uid !== found.details.uid || typeof done.accountId !== 'string') {
      return page(c, 'Sign-in expired', 'Start again from your application.', 400);
    }
    await states.destroy(key);
    const { req, res } = nodeObjects(c);
    const login = { login: { accountId: done.accountId, remember: false } };
    return c.redirect(await found.provider.interactionResult(req, res, login, { mergeWithLastSubmission: false }), 303);
  });
}
