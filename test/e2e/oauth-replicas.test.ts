/**
 * Tokens across replicas on PostgreSQL: two apps on one shared schema, each with its HTTP door, trusting
 * the same external issuer (oidc-provider in its own process). A person's first requests, sent to both
 * at once, make one key; revoking it through one replica refuses the person's token at the other.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { startHttpServer, type RunningServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { tempDir } from '../helpers/app.js';
import { startExternalIssuer, type ExternalIssuer, type IssuerClient } from '../helpers/external-issuer.js';
import { pgReachable, TEST_DATABASE_URL } from '../helpers/postgres.js';

const PERSON: IssuerClient = { id: 'replica-person', secret: 'replica-secret-0123456789abcdef01', team: 'default' };
const PUBLIC = 'https://trawl.example.com';
const schema = `t_oauth_${process.pid}_${Date.now().toString(36)}`;
const secretKey = randomBytes(32).toString('base64');

let issuer: ExternalIssuer;
const replicas: { app: App; server: RunningServer; cleanup: () => void }[] = [];

beforeAll(async () => {
  if (!pgReachable) return;
  issuer = await startExternalIssuer([PERSON]);
  for (let i = 0; i < 2; i++) {
    const { dir, cleanup } = tempDir('trawl-oauth-replica-');
    const config = loadConfig({}, {
      dataDir: dir, databaseUrl: TEST_DATABASE_URL, databaseSchema: schema, secretKey, logLevel: 'silent',
      rateLimitQps: 0, authIssuer: issuer.issuer, publicUrl: PUBLIC,
    }); // prettier-ignore
    const app = await openApp(config, { logger: createLogger('silent'), follow: false });
    replicas.push({ app, server: await startHttpServer(app, '127.0.0.1', 0), cleanup });
  }
});
afterAll(async () => {
  for (const r of replicas) {
    await r.server.close();
    await r.app.close();
    r.cleanup();
  }
  await issuer?.close();
  if (!pgReachable) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

const search = (replica: number, token: string) =>
  fetch(`${replicas[replica]!.server.url}/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'x' }),
  });

describe.runIf(pgReachable)('OAuth tokens across replicas on PostgreSQL', () => {
  it('makes one key for a person whichever replica answers, and a revocation on one counts on the other', async () => {
    const token = await issuer.token(PERSON, `${PUBLIC}/`, 'search');
    const answers = await Promise.all([0, 1, 0, 1].map((r) => search(r, token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const keys = (await replicas[0]!.app.keys.list(null)).filter((k) => k.name.startsWith('oauth: '));
    expect(keys).toHaveLength(1);

    await replicas[0]!.app.keys.revoke(keys[0]!.id, null);
    const refused = await search(1, token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toMatch(/has been revoked/);
  });
});
