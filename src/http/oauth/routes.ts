/**
 * Trawl's own authorization server on the HTTP listener (TRAWL_OAUTH=on; off, every path here is a 404
 * as before): oidc-provider under `/oauth` through the bridge, its metadata also at the RFC 8414 path
 * `/.well-known/oauth-authorization-server/oauth` (where MCP clients look), and the sign-in and consent
 * pages. Host and Origin are checked as for /mcp (DNS rebinding).
 */
import type { Context, Hono } from 'hono';
import type Provider from 'oidc-provider';
import type { Door } from '../../compose/door.js';
import { ServiceError } from '../../errors.js';
import { DEFAULT_USER_AGENT } from '../../fetch/fetcher.js';
import { createMetadataFetch } from '../../fetch/metadata-fetch.js';
import type { HttpEnv } from '../env.js';
import { createOriginGuard, originOf } from '../origin-guard.js';
import { toProvider } from './bridge.js';
import { mountFederation } from './federated.js';
import { mountInteractions } from './interactions.js';
import { publicBaseOf } from './public-url.js';

export function mountOAuth(hono: Hono<HttpEnv>, app: Door): void {
  const { config } = app;
  if (config.oauth !== 'on') return;
  const publicOrigin = config.publicUrl;
  const guard = createOriginGuard({
    listenHost: config.host,
    allowedHosts: config.allowedHosts,
    // the sign-in and consent forms post from the server's own public origin
    allowedOrigins: [...config.allowedOrigins, ...(publicOrigin ? [originOf(publicOrigin) ?? publicOrigin] : [])],
  });
  const metadata = createMetadataFetch({
    guard: { allowPrivateNetwork: config.allowPrivateNetwork, privateAllowlist: config.privateAllowlist },
    userAgent: config.userAgent ?? DEFAULT_USER_AGENT,
  });
  app.onClose(() => metadata.close());
  const providers = new Map<string, Promise<Provider>>();

  const providerOf = (c: Context<HttpEnv>): Promise<Provider> => {
    guard(c.req.raw.headers);
    const base = publicBaseOf(config, app.auth);
    if (!base) {
      throw new ServiceError('NOT_FOUND', 'The authorization server needs TRAWL_PUBLIC_URL when Trawl does not listen on loopback.'); // prettier-ignore
    }
    // an https public URL is served behind a TLS proxy: a request that did not come through it gets no cookies
    const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    if (base.startsWith('https:') && forwarded !== 'https') {
      throw new ServiceError('INVALID_REQUEST', `The authorization server is ${base}/oauth: reach it over HTTPS through the TLS proxy, which must set X-Forwarded-Proto.`); // prettier-ignore
    }
    let provider = providers.get(base);
    if (!provider) {
      // oidc-provider (and Koa) load on the first OAuth request, so start-up does not pay for them
      provider = import('./provider.js').then(({ createProvider }) =>
        createProvider({ base, oauth: app.oauth, fetch: metadata, dcr: config.oauthDcr, logger: app.logger }),
      );
      provider.catch(() => providers.delete(base));
      providers.set(base, provider);
    }
    return provider;
  };

  mountInteractions(hono, { oauth: app.oauth, providerOf, federated: config.oidcIssuer !== undefined });
  mountFederation(hono, {
    config,
    oauth: app.oauth,
    keys: app.keys,
    logger: app.logger,
    providerOf,
    base: () => publicBaseOf(config, app.auth) ?? '',
    onClose: (stop) => app.onClose(stop),
  });
  const metadataDocument = async (c: Context<HttpEnv>) => toProvider(c, await providerOf(c), '/.well-known/openid-configuration'); // prettier-ignore
  hono.get('/.well-known/oauth-authorization-server/oauth', metadataDocument);
  hono.get('/.well-known/openid-configuration/oauth', metadataDocument);
  hono.all('/oauth/*', async (c) => toProvider(c, await providerOf(c)));
}
