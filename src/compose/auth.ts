/**
 * OAuth on the doors, from the settings: the public URL resources are named by (TRAWL_PUBLIC_URL, else
 * the listener's), and the access-token verifier of Trawl's own authorization server (plugged in with
 * `useOwnIssuer`) and of an external one (TRAWL_AUTH_ISSUER). The external issuer's metadata and keys
 * are fetched with size and time caps; its own host is reached as the operator configured it (it may be
 * private), any other host its metadata names only through the SSRF guard.
 */
import type { Config } from '../config/config.js';
import { createAccessTokens, type AccessTokens, type ExternalIssuer, type OwnIssuer } from '../core/accounts/oauth.js';
import type { KeysService } from '../core/accounts/keys.service.js';
import type { Caller, Clock } from '../core/context.js';
import { createAddressGuard, type HostLookup } from '../fetch/address-guard.js';
import { createApiClient } from '../fetch/api-client.js';
import type { DoorAuth, OAuthResource } from './door.js';

/** Largest issuer metadata document or key set read. */
const MAX_METADATA_BYTES = 256 * 1024;
/** Longest one fetch of issuer metadata or keys may take. */
const METADATA_TIMEOUT_MS = 10_000;

/** What the door's OAuth is built from. */
export interface DoorAuthDeps {
  config: Config;
  keys: KeysService;
  clock: Clock;
  userAgent: string;
  lookup?: HostLookup;
}

/** The JSON GET of the external issuer: its own origin trusted, other hosts through the SSRF guard. */
function issuerClient(issuer: string, deps: DoorAuthDeps) {
  const limits = { maxResponseBytes: MAX_METADATA_BYTES, connectTimeoutMs: METADATA_TIMEOUT_MS };
  const trusted = createApiClient({ userAgent: deps.userAgent, ...limits });
  const guard = createAddressGuard({
    allowPrivateNetwork: deps.config.allowPrivateNetwork,
    privateAllowlist: deps.config.privateAllowlist,
    lookup: deps.lookup,
    liftedBy: 'the issuer metadata named a non-public host other than TRAWL_AUTH_ISSUER’s',
  });
  const guarded = createApiClient({ userAgent: deps.userAgent, ...limits, guard });
  const origin = new URL(issuer).origin;
  const options = { timeoutMs: METADATA_TIMEOUT_MS, headers: { accept: 'application/json' } };
  return {
    getJson: (url: string) => (new URL(url).origin === origin ? trusted : guarded).getJson<unknown>(url, options),
    close: async () => {
      await trusted.close();
      await guarded.close();
    },
  };
}

/** The door's OAuth, and how to close its clients. */
export function createDoorAuth(deps: DoorAuthDeps): DoorAuth & { close(): Promise<void> } {
  const { config } = deps;
  let listenerUrl: string | undefined;
  let own: OwnIssuer | undefined;
  const client = config.authIssuer ? issuerClient(config.authIssuer, deps) : undefined;
  const external: ExternalIssuer | undefined =
    config.authIssuer && client
      ? { issuer: config.authIssuer, audiences: config.authAudience, getJson: client.getJson }
      : undefined;
  const build = (): AccessTokens => createAccessTokens({ keys: deps.keys, clock: deps.clock, own, external });
  let tokens = build();

  const publicUrl = () =>
    config.publicUrl ??
    listenerUrl ??
    `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const resource = (kind: OAuthResource) => `${publicUrl()}${kind === 'mcp' ? '/mcp' : '/'}`;
  return {
    enabled: () => own !== undefined || external !== undefined,
    publicUrl,
    listening(url) {
      listenerUrl = url.replace(/\/+$/, '');
    },
    localUrl: () => listenerUrl,
    resource,
    authorizationServers: () => tokens.issuers(),
    verifyToken: (token: string, kind: OAuthResource): Promise<Caller> => tokens.verify(token, resource(kind)),
    useOwnIssuer(issuer) {
      own = issuer;
      tokens = build();
    },
    close: async () => {
      await client?.close();
    },
  };
}
