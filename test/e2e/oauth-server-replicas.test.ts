// Trawl's own authorization server on two replicas sharing one PostgreSQL store: the client registers
// on one, the person signs in and consents on it, the code is exchanged on the other, which signs with
// the same sealed keys; a refresh on the first rotates what the second issued; blocking the team
// revokes the grant on both.
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { tempDir } from '../helpers/app.js';
import { authorize, pkcePair, tokenCall } from '../helpers/oauth.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const schema = `oauth_replicas_${process.pid}_${Date.now().toString(36)}`;
const secretKey = randomBytes(32).toString('base64');
const REDIRECT = 'http://127.0.0.1:9/callback';

describe.skipIf(!pgReachable)('the authorization server on replicas', () => {
  const replicas: { app: App; server: RunningServer; cleanup: () => void }[] = [];
  let base = '';

  /** A replica on the shared store, named by the first replica's URL (TRAWL_PUBLIC_URL), as behind a load balancer. */
  async function replica(publicUrl?: string) {
    const dir = tempDir('trawl-oauth-replica-');
    const config = loadConfig({}, {
      dataDir: dir.dir, port: 0, logLevel: 'silent', rateLimitQps: 0, oauth: 'on', oauthDcr: true,
      databaseUrl: TEST_DATABASE_URL, databaseSchema: schema, secretKey, ...(publicUrl ? { publicUrl } : {}),
    }); // prettier-ignore
    const app = await openApp(config, { logger: createLogger('silent'), follow: false });
    const server = await startHttpServer(app, '127.0.0.1', 0);
    replicas.push({ app, server, cleanup: dir.cleanup });
    return { app, server };
  }

  beforeAll(async () => {
    // the first replica learns its port, then both name themselves by it
    const probe = await replica();
    base = probe.server.url;
    await probe.server.close();
    await probe.app.close();
    replicas.length = 0;
    await replica(base);
    await replica(base);
  }, 60_000);

  afterAll(async () => {
    for (const r of replicas) {
      await r.server.close();
      await r.app.close();
      r.cleanup();
    }
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  });

  it('authorizes on one replica and issues and refreshes on the other; blocking the team revokes on both', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const team = await a.app.services.accounts.teams.create('acme', {}, null);
    const key = await a.app.services.keys.create('carol', { teamId: team.id, scopes: ['search'] }, null);
    const reg = await fetch(`${a.server.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'replicated', redirect_uris: [REDIRECT], application_type: 'native' }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const { verifier, challenge } = pkcePair();
    const { redirect } = await authorize({ base: a.server.url, clientId, redirectUri: REDIRECT, key: key.key, scope: 'search', challenge }); // prettier-ignore
    const code = new URL(redirect).searchParams.get('code')!;
    const tokens = await tokenCall(b.server.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId }); // prettier-ignore
    expect(tokens.status).toBe(200);
    // replica b signed with the keys replica a verifies with
    const jwks = createRemoteJWKSet(new URL(`${a.server.url}/oauth/jwks`));
    const { payload } = await jwtVerify(tokens.body.access_token, jwks, {
      issuer: `${base}/oauth`,
      audience: `${base}/mcp`,
    });
    expect(payload.sub).toBe(key.id);
    const refreshed = await tokenCall(a.server.url, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: clientId }); // prettier-ignore
    expect(refreshed.status).toBe(200);
    await b.app.services.accounts.teams.block(team.id, null);
    const refused = await tokenCall(a.server.url, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: clientId }); // prettier-ignore
    expect(refused.body.error).toBe('invalid_grant');
  }, 60_000);
});
