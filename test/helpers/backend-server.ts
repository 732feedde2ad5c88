/**
 * Test helper: the real HTTP door on 127.0.0.1:0 over either backend: SQLite in a temporary data
 * directory (as `startTestServer`), or PostgreSQL in a fresh schema (dropped on close), opened as `trawl
 * serve` opens it (`openApp`). Suites that must hold on both run once per entry of `BACKENDS`.
 */
import { randomBytes } from 'node:crypto';
import { openApp } from '../../src/compose/app.js';
import { loadConfig, type ConfigFlags } from '../../src/config/config.js';
import { SCOPES } from '../../src/core/access/scopes.js';
import { startHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTestServer, tempDir, type TestServer } from './app.js';
import { freshPgStore, pgReachable, TEST_DATABASE_URL } from './postgres.js';

export type Backend = 'sqlite' | 'postgres';

/** The backends a suite runs on: SQLite always, PostgreSQL when one answers (CI always starts one). */
export const BACKENDS: readonly Backend[] = pgReachable ? ['sqlite', 'postgres'] : ['sqlite'];

/** A server on `backend` with one key of every scope (`key`), as `startTestServer` makes. */
export async function startServerOn(backend: Backend, flags: ConfigFlags = {}): Promise<TestServer> {
  if (backend === 'sqlite') return startTestServer(flags);
  const pg = await freshPgStore(); // the schema, migrated; its pool drops it on close
  const dir = tempDir('trawl-pg-server-');
  const config = loadConfig(
    {},
    {
      dataDir: dir.dir,
      port: 0,
      host: '127.0.0.1',
      logLevel: 'silent',
      rateLimitQps: 0,
      databaseUrl: TEST_DATABASE_URL,
      databaseSchema: pg.schema,
      secretKey: randomBytes(32).toString('base64'),
      ...flags,
    },
  );
  const app = await openApp(config, { logger: createLogger('silent') });
  const server = await startHttpServer(app, '127.0.0.1', 0);
  const key = (await app.services.keys.create('test', { scopes: SCOPES }, null)).key;
  return {
    app,
    dataDir: dir.dir,
    server,
    url: server.url,
    key,
    async close() {
      await server.close();
      await app.close();
      await pg.drop();
      dir.cleanup();
    },
  };
}
