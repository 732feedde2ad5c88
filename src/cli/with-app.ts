/** The app a short CLI command works with: silent, running no monitors, closed when the work is done. */
import { createApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { createLogger } from '../lib/logger.js';

export async function withApp<T>(config: Config, fn: (app: App) => T): Promise<T> {
  const app = createApp({ ...config, monitors: false }, { logger: createLogger('silent') });
  try {
    return fn(app);
  } finally {
    await app.close();
  }
}
