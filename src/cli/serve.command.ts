/** `trawl serve`: the HTTP door on the configured address, until SIGINT/SIGTERM. */
import fs from 'node:fs';
import path from 'node:path';
import { createApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { startHttpServer } from '../http/server.js';
import { selectOperations } from '../ops/registry.js';

export const FIRST_KEY_FILE = 'first-api-key';

/**
 * On a first start (no key ever made) creates a key and writes it to `<dataDir>/first-api-key` (0600),
 * telling the operator once where it is. The key itself never goes to the log.
 */
function ensureFirstKey(app: App): void {
  if (!app.config.createFirstKey) return;
  const made = app.services.keys.createFirst('first key');
  if (!made) return;
  const file = path.join(app.config.dataDir, FIRST_KEY_FILE);
  fs.writeFileSync(file, `${made.key}\n`, { mode: 0o600 });
  app.logger.warn(
    { keyId: made.id, file },
    `No API key existed, so one was created. Read it with: cat ${file} — then delete the file. ` +
      'Make more with: trawl keys create --name NAME',
  );
}

export async function runServe(config: Config): Promise<void> {
  selectOperations(config.tools); // fail fast on unknown tool names
  const app = createApp(config);
  ensureFirstKey(app);
  const server = await startHttpServer(app);
  // new pages are embedded in the background when an embeddings provider is configured
  app.services.semantic?.start();
  app.logger.info({ url: server.url, dataDir: config.dataDir }, `listening on ${server.url}`);
  const stop = async (signal: string) => {
    app.logger.info({ signal }, 'shutting down');
    await server.close();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
