/**
 * oidc-provider configured as Trawl's authorization server at `<base>/oauth`: authorization code with
 * PKCE S256 only, resource indicators (RFC 8707) for `<base>/mcp` and the REST root `<base>/`, JWT
 * access tokens of ten minutes, refresh tokens rotated on every use, revocation, Client ID Metadata
 * Documents fetched through the SSRF guard, Dynamic Client Registration behind TRAWL_OAUTH_DCR. Its
 * state lives in Trawl's store (core/oauth), its keys are sealed there; the account is the API key id.
 */
import { consoleClient } from './console-client.js';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthService } from '../../core/oauth/oauth.service.js';
import { DEFAULT_SCOPES, SCOPES } from '../../core/access/scopes.js';
import type { MetadataFetch } from '../../fetch/metadata-fetch.js';
import type { Logger } from '../../lib/logger.js';
import { errorPage, PAGE_HEADERS } from './pages.js';

/** Access tokens live ten minutes; everything a person did (grant, refresh token) thirty days. */
export const TTL = {
  AccessToken: 600,
  AuthorizationCode: 60,
  Interaction: 600,
  Session: 24 * 3600,
  Grant: 30 * 24 * 3600,
  RefreshToken: 30 * 24 * 3600,
} as const;

export interface ProviderOptions {
  /** The public base URL (`https://trawl.example`), without a trailing slash. */
  base: string;
  oauth: OAuthService;
  fetch: MetadataFetch;
  dcr: boolean;
  logger: Logger;
}

/** The resources tokens may be for: the MCP endpoint and the REST root. */
export const resourcesOf = (base: string) => [`${base}/mcp`, `${base}/`];

const loopbackBase = (base: string) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/.test(base);

export async function createProvider(options: ProviderOptions): Promise<Provider> {
  const { base, oauth } = options;
  const secrets = await oauth.secrets();
  const resources = new Set(resourcesOf(base));
  const secure = !loopbackBase(base);
  const configuration: Configuration = {
    adapter: oauth.adapter as unknown as Configuration['adapter'],
    jwks: { keys: secrets.signingKeys as never },
    cookies: {
      keys: secrets.cookieKeys,
      // the sign-in and consent flow arrives by a cross-site redirect: Lax; the session cookie: Strict
      short: { httpOnly: true, sameSite: 'lax', secure },
      long: { httpOnly: true, sameSite: 'strict', secure },
    },
    findAccount: async (_ctx, sub) => {
      const caller = await oauth.account(sub);
      return caller ? { accountId: caller.keyId, claims: () => ({ sub: caller.keyId }) } : undefined;
    },
    // the web console (TRAWL_CONSOLE), a public client whose back end is this server
    clients: [consoleClient(base)],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access'],
    claims: { openid: ['sub'] },
    ttl: { ...TTL },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // tokens outlive the browser's sign-in session: a client refreshes for 30 days without the person
    expiresWithSession: async () => false,
    allowOmittingSingleRegisteredRedirectUri: false,
    conformIdTokenClaims: true,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    routes: { authorization: '/auth', token: '/token', revocation: '/revoke', jwks: '/jwks', registration: '/reg' },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: options.dcr, initialAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // the document is fetched through Trawl's SSRF guard (the `fetch` below)
        allowFetch: async () => true,
        allowClient: async () => true,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? `${base}/mcp`,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!resources.has(indicator))
            throw new errors.InvalidTarget(`${indicator} is not a resource of this server`);
          return {
            scope: SCOPES.join(' '),
            audience: indicator,
            accessTokenTTL: TTL.AccessToken,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    } as Configuration['features'],
    fetch: (input, init) => options.fetch.fetch(String(input instanceof Request ? input.url : input), init as never),
    // a browser-based client's origin was already checked by the door (loopback, TRAWL_ALLOWED_ORIGINS, the public URL)
    clientBasedCORS: () => true,
    renderError: (ctx, out) => {
      const message = out.error_description ?? out.error;
      ctx.set(PAGE_HEADERS);
      ctx.body = errorPage('Sign-in failed', `${message}. Start again from your application.`);
    },
  };
  const provider = new Provider(`${base}/oauth`, configuration);
  // behind a TLS proxy (any public URL), the scheme and host come from X-Forwarded-*
  provider.proxy = secure;
  // an authorization request that names no scope gets the least-privilege defaults (never admin)
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth' && ctx.method === 'GET' && !ctx.query.scope) {
      ctx.query = { ...ctx.query, scope: DEFAULT_SCOPES.join(' ') };
    }
    await next();
  });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, err: Error) =>
    options.logger.error({ error: err.message }, 'OAuth server error'),
  );
  return provider;
}
