/** The app a short CLI command works with: silent, running no monitors, closed when the work is done. */
import { openApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { createLogger } from '../lib/logger.js';

/** Runs `fn` on a fresh app and closes the app once `fn` has settled (its promise included). */
export async function withApp<T>(config: Config, fn: (app: App) => T): Promise<Awaited<T>> {
  const app = await openApp({ ...config, monitors: false }, { logger: createLogger('silent'), follow: false });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
