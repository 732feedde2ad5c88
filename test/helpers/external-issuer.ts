/**
 * An external authorization server for the tests: oidc-provider run as a separate process on loopback
 * (test/fixtures/oauth/external-issuer.mjs), the stand-in for Keycloak, Entra or Auth0. Tokens come from
 * its token endpoint by the client_credentials grant, for a resource (RFC 8707) and scopes; or by the
 * authorization code flow of a client identified by a Client ID Metadata Document, a person signing in
 * on its development pages (test/e2e/oauth-external-flow.test.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './app.js';

/** A client of the issuer, and the claims its tokens carry. */
export interface IssuerClient {
  id: string;
  secret: string;
  /** `trawl_team`: a team id or name. */
  team?: string;
  email?: string;
  /** Authenticates at the token endpoint with HTTP Basic (as the MCP SDK's client does) instead of the form. */
  basic?: boolean;
}

export interface ExternalIssuer {
  issuer: string;
  /** An access token of `client` for `resource` with `scope` (space-separated). */
  token(client: IssuerClient, resource: string, scope: string): Promise<string>;
  /** Signs with a new key from now on (the old one stays published); resolves with its kid. */
  rotate(): Promise<string>;
  close(): Promise<void>;
}

const FIXTURE = path.join(ROOT, 'test/fixtures/oauth/external-issuer.mjs');

/**
 * Starts the issuer process with `clients`; `ttlSeconds` is its access tokens' lifetime; `env` is added
 * to its environment (NODE_EXTRA_CA_CERTS: to fetch a metadata document served with a test certificate).
 */
export async function startExternalIssuer(
  clients: IssuerClient[],
  ttlSeconds = 600,
  env: Record<string, string> = {},
): Promise<ExternalIssuer> {
  const child: ChildProcess = fork(FIXTURE, [], {
    env: { ...process.env, ...env, ISSUER_CLIENTS: JSON.stringify(clients), ISSUER_TOKEN_TTL: String(ttlSeconds) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the issuer process exited (${code}) before listening`)));
  });
  return {
    issuer,
    async token(client, resource, scope) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.id,
          client_secret: client.secret,
          resource,
          scope,
        }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token request failed: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    rotate: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { rotated: string }).rotated));
        child.send({ rotate: true });
      }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
