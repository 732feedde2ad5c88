/**
 * The authorization server's secrets: its token-signing keys (a P-256 key for ES256 access tokens, an
 * RSA key for the RS256 defaults of OpenID clients), its cookie keys and the key of its forms' CSRF
 * tokens. Made on the first start, sealed with the operator key (TRAWL_SECRET_KEY) and stored, so every
 * replica signs and verifies with the same keys; the first process to store them wins a race.
 */
import { createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { OAuthRepo } from '../../store/contracts/oauth.js';
import type { SecretBox } from '../monitors/secret-box.js';

/** A JSON Web Key (private or public) as node:crypto exports it, with its id, use and algorithm. */
export type Jwk = JsonWebKey & { kid: string; alg: string; use: string };

export interface OAuthSecrets {
  /** The private signing keys (oidc-provider's `jwks`). */
  signingKeys: Jwk[];
  /** Keys of oidc-provider's signed cookies (newest first). */
  cookieKeys: string[];
  /** Key of the sign-in and consent forms' CSRF tokens. */
  csrfKey: string;
}

/** The name the secrets are stored under (`sealed_secrets`). */
export const OAUTH_SECRETS_NAME = 'oauth.keys';

const PRIVATE_FIELDS = ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const;

/** A key's id: a digest of its public part. */
const kidOf = (jwk: JsonWebKey) => createHash('sha256').update(JSON.stringify([jwk.kty, jwk.crv, jwk.x, jwk.n])).digest('base64url').slice(0, 16); // prettier-ignore

function signingKey(type: 'ec' | 'rsa'): Jwk {
  const { privateKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: kidOf(jwk), alg: type === 'ec' ? 'ES256' : 'RS256', use: 'sig' };
}

/** Fresh secrets (the first start of an installation). */
export function makeOAuthSecrets(): OAuthSecrets {
  return {
    signingKeys: [signingKey('ec'), signingKey('rsa')],
    cookieKeys: [randomBytes(32).toString('base64url')],
    csrfKey: randomBytes(32).toString('base64url'),
  };
}

/** The public half of signing keys (what a JWKS document serves). */
export function publicKeys(keys: readonly Jwk[]): Jwk[] {
  return keys.map((key) => {
    const copy: Record<string, unknown> = { ...key };
    for (const field of PRIVATE_FIELDS) delete copy[field];
    return copy as Jwk;
  });
}

/** The stored secrets, made and stored first when there are none. */
export async function loadOAuthSecrets(repo: OAuthRepo, box: SecretBox, now: () => Date): Promise<OAuthSecrets> {
  const stored =
    (await repo.getSecret(OAUTH_SECRETS_NAME)) ??
    (await repo.putSecretIfAbsent({
      name: OAUTH_SECRETS_NAME,
      sealed: box.seal(JSON.stringify(makeOAuthSecrets())),
      createdAt: now().toISOString(),
    }));
  return JSON.parse(box.open(stored.sealed)) as OAuthSecrets;
}
