/**
 * OAuth access tokens as credentials (Trawl as a resource server): JWT access tokens of Trawl's own
 * authorization server or of an external one (TRAWL_AUTH_ISSUER), verified with `jose` against the
 * issuer's keys, for one resource (RFC 8707 audience), and turned into the Caller of the key they stand
 * for, holding only the scopes both the key and the token hold.
 */
import {
  createLocalJWKSet,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from 'jose';
import { ServiceError } from '../../errors.js';
import type { Caller, Clock } from '../context.js';
import type { Identity } from './identity.js';
import { narrowedCaller, type KeysService } from './keys.service.js';

/** Trawl's own authorization server as the resource server trusts it: its issuer and public keys. */
export interface OwnIssuer {
  /** `<public url>/oauth`. */
  readonly issuer: string;
  /** The public keys its access tokens are signed with (rotated keys stay listed while tokens may carry them). */
  jwks(): Promise<{ keys: JWK[] }>;
}

/** An external authorization server (TRAWL_AUTH_ISSUER): its identifier, how to reach it, what it may put in `aud`. */
export interface ExternalIssuer {
  issuer: string;
  /** Audiences accepted instead of the resource URL (TRAWL_AUTH_AUDIENCE); empty: the resource URL. */
  audiences: readonly string[];
  /** GETs a JSON document (issuer metadata, JWKS) with size and time limits, through the SSRF guard. */
  getJson(url: string): Promise<unknown>;
}

/** What an access token granted, kept beside the caller it was turned into. */
export interface TokenGrant {
  issuer: string;
  /** The token's scopes (before they were narrowed to the key's). */
  scopes: readonly string[];
  clientId?: string;
}

/** Verifies access tokens for a resource. */
export interface AccessTokens {
  /** The issuers whose tokens are accepted (for the protected-resource metadata). */
  issuers(): string[];
  /**
   * The caller `token` stands for at `resource` (its URL): INVALID_API_KEY (401) for a token that is
   * malformed, of an unknown issuer, badly signed, for another audience, expired, or of a revoked key;
   * IDENTITY_NOT_MAPPED (403) for an external token of a person of no team; SERVICE_UNAVAILABLE when
   * the external issuer's metadata or keys cannot be fetched.
   */
  verify(token: string, resource: string): Promise<Caller>;
}

const grants = new WeakMap<Caller, TokenGrant>();

/** The token grant a caller was made from; undefined for a caller of an API key. */
export function grantOf(caller: Caller): TokenGrant | undefined {
  return grants.get(caller);
}

/** Clock skew allowed on `exp`, `nbf` and `iat`. */
const SKEW_SECONDS = 30;
/** Algorithms accepted: asymmetric signatures only (a shared secret would let anyone with it mint tokens). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Least time between two reloads of a key set for a token whose key it does not know. */
const RELOAD_COOLDOWN_MS = 30_000;
/** Longest a key set is kept without a reload. */
const MAX_AGE_MS = 10 * 60_000;

const invalid = (why: string) => new ServiceError('INVALID_API_KEY', `Invalid access token: ${why}.`);

/** How long a failed load of a key set is answered with its failure before the issuer is asked again. */
const FAILURE_BACKOFF_MS = 5_000;

/**
 * A key set loaded on demand, kept for MAX_AGE_MS, reloaded (at most every cooldown) for an unknown
 * `kid`; concurrent loads are one, and a failed load is repeated to callers for FAILURE_BACKOFF_MS, so
 * a flood of tokens cannot make Trawl hammer an issuer that is down.
 */
function createKeySet(load: () => Promise<JSONWebKeySet>, now: () => number) {
  let current: { keys: ReturnType<typeof createLocalJWKSet>; at: number } | undefined;
  let failed: { err: unknown; at: number } | undefined;
  let loading: Promise<void> | undefined;
  const reload = () => {
    if (failed && now() - failed.at < FAILURE_BACKOFF_MS) return Promise.reject(failed.err);
    return (loading ??= load()
      .then(
        (set) => {
          current = { keys: createLocalJWKSet(set), at: now() };
          failed = undefined;
        },
        (err: unknown) => {
          failed = { err, at: now() };
          throw err;
        },
      )
      .finally(() => {
        loading = undefined;
      }));
  };
  return {
    async verify(token: string, check: (keys: ReturnType<typeof createLocalJWKSet>) => Promise<JWTPayload>) {
      if (!current || now() - current.at > MAX_AGE_MS) await reload();
      try {
        return await check(current!.keys);
      } catch (err) {
        // a key the set does not hold: the issuer may have rotated since it was loaded
        if (!(err instanceof joseErrors.JWKSNoMatchingKey) || now() - current!.at < RELOAD_COOLDOWN_MS) throw err;
        await reload();
        return await check(current!.keys);
      }
    },
  };
}

/**
 * Refuses a JWT of the external issuer that says it is not an access token: an OpenID Connect ID token
 * (its `nonce` or `at_hash`, Keycloak's `typ: "ID"` claim) or a header `typ` other than an access
 * token's or the generic `JWT` (which Keycloak and Entra put on access tokens).
 */
function requireAccessToken(header: { typ?: string }, payload: JWTPayload): void {
  const typ = header.typ?.toLowerCase().replace(/^application\//, '');
  if (typ !== undefined && typ !== 'at+jwt' && typ !== 'jwt') throw invalid(`its type "${typ.slice(0, 40)}" is not an access token's`); // prettier-ignore
  if (payload.nonce !== undefined || payload.at_hash !== undefined || payload.typ === 'ID') {
    throw invalid('it is an ID token, not an access token');
  }
}

/** The JWKS of a JSON document, or SERVICE_UNAVAILABLE naming where it came from. */
function asKeySet(doc: unknown, where: string): JSONWebKeySet {
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new ServiceError('SERVICE_UNAVAILABLE', `${where} is not a JSON Web Key Set`);
  return { keys: keys as JWK[] };
}

/**
 * The metadata URLs of `issuer`, in the order RFC 8414 §3.1 and OIDC Discovery say: the authorization
 * server metadata (well-known part before the issuer's path), then the OpenID configuration (after it).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The JWKS URI of an external issuer, discovered from its metadata (whose `issuer` must be the one configured). */
export async function discoverJwksUri(external: ExternalIssuer): Promise<string> {
  const failures: string[] = [];
  for (const url of metadataUrls(external.issuer)) {
    try {
      const doc = (await external.getJson(url)) as { issuer?: unknown; jwks_uri?: unknown } | null;
      if (doc?.issuer !== external.issuer) {
        failures.push(`${url}: its issuer is ${JSON.stringify(doc?.issuer)?.slice(0, 100)}`);
        continue;
      }
      if (typeof doc.jwks_uri !== 'string' || !/^https?:\/\//.test(doc.jwks_uri)) {
        failures.push(`${url}: no http(s) jwks_uri`);
        continue;
      }
      return doc.jwks_uri;
    } catch (err) {
      failures.push(`${url}: ${(err as Error).message.slice(0, 200)}`);
    }
  }
  throw new ServiceError(
    'SERVICE_UNAVAILABLE',
    `The authorization server ${external.issuer} (TRAWL_AUTH_ISSUER) has no usable metadata: ${failures.join('; ')}`,
  );
}

/** The scopes a token grants: `scope` (RFC 9068, space-separated) or `scp` (Entra: a string or a list). */
function scopesOf(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(/\s+/).filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** The person an external token names. */
function identityOf(issuer: string, payload: JWTPayload): Identity {
  if (typeof payload.sub !== 'string' || !payload.sub) throw invalid('it names no subject (sub)');
  const email = typeof payload.email === 'string' ? payload.email : undefined;
  return {
    issuer,
    subject: payload.sub,
    ...(email ? { email } : {}),
    ...(typeof payload.email_verified === 'boolean' ? { emailVerified: payload.email_verified } : {}),
    claims: payload,
  };
}

/** What the token verifier is built from. */
export interface AccessTokensDeps {
  keys: KeysService;
  clock: Clock;
  /** Trawl's own authorization server, when it is on. */
  own?: OwnIssuer;
  /** An external authorization server, when TRAWL_AUTH_ISSUER is set. */
  external?: ExternalIssuer;
}

/** The access-token verifier of the own and/or external issuer. */
export function createAccessTokens(deps: AccessTokensDeps): AccessTokens {
  const now = () => deps.clock.now().getTime();
  const { own, external } = deps;
  const ownKeys = own && createKeySet(async () => asKeySet(await own.jwks(), 'the own issuer'), now);
  let externalKeys: ReturnType<typeof createKeySet> | undefined;
  const externalKeySet = () =>
    (externalKeys ??= createKeySet(async () => {
      const uri = await discoverJwksUri(external!);
      try {
        return asKeySet(await external!.getJson(uri), uri);
      } catch (err) {
        if (err instanceof ServiceError) throw err;
        throw new ServiceError(
          'SERVICE_UNAVAILABLE',
          `The keys of ${external!.issuer} (${uri}) cannot be fetched: ${(err as Error).message.slice(0, 200)}`,
        );
      }
    }, now));

  const check = async (
    token: string,
    issuer: string,
    audience: string | string[],
    keySet: ReturnType<typeof createKeySet>,
    typ?: string,
  ) => {
    try {
      return await keySet.verify(token, async (keys) => {
        const { payload, protectedHeader } = await jwtVerify(token, keys, {
          issuer,
          audience,
          algorithms: ALGORITHMS,
          clockTolerance: SKEW_SECONDS,
          currentDate: deps.clock.now(),
          ...(typ ? { typ } : {}),
        });
        requireAccessToken(protectedHeader, payload);
        return payload;
      });
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw invalid('it has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
        throw invalid(`it is not for this resource (its audience must be ${[audience].flat().join(' or ')})`);
      }
      if (err instanceof joseErrors.JOSEError) throw invalid(`${err.code}: ${err.message.slice(0, 200)}`);
      throw new ServiceError(
        'SERVICE_UNAVAILABLE',
        `The keys of ${issuer} cannot be loaded: ${(err as Error).message.slice(0, 200)}`,
      );
    }
  };

  const withGrant = (caller: Caller, issuer: string, payload: JWTPayload): Caller => {
    const scopes = scopesOf(payload);
    const narrowed = narrowedCaller(caller, scopes);
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    grants.set(narrowed, { issuer, scopes, ...(clientId ? { clientId } : {}) });
    return narrowed;
  };

  return {
    issuers: () => [...(own ? [own.issuer] : []), ...(external ? [external.issuer] : [])],
    async verify(token, resource) {
      let claimed: string | undefined;
      try {
        claimed = decodeJwt(token).iss;
      } catch {
        throw invalid('it is neither a Trawl API key (trawl_…) nor a JWT access token');
      }
      if (own && claimed === own.issuer) {
        // RFC 9068: the own issuer's access tokens say what they are, so no other JWT of it passes as one
        const payload = await check(token, own.issuer, resource, ownKeys!, 'at+jwt');
        if (typeof payload.sub !== 'string') throw invalid('it names no key (sub)');
        const caller = await deps.keys.callerOf(payload.sub);
        if (!caller)
          throw invalid(`the API key it was issued through (${payload.sub.slice(0, 40)}) is unknown or revoked`);
        return withGrant(caller, own.issuer, payload);
      }
      if (external && claimed === external.issuer) {
        const audience = external.audiences.length > 0 ? [...external.audiences] : resource;
        const payload = await check(token, external.issuer, audience, externalKeySet());
        const caller = await deps.keys.forIdentity(identityOf(external.issuer, payload));
        return withGrant(caller, external.issuer, payload);
      }
      throw invalid(`its issuer ${JSON.stringify(claimed ?? null).slice(0, 120)} is not trusted here`);
    },
  };
}
