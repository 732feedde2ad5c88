/** The app a short CLI command works with: silent, running no monitors, closed when the work is done. */
import { openDoor } from '../compose/open.js';
import type { OperatorDoor } from '../compose/door.js';
import type { Config } from '../config/config.js';
import type { Caller } from '../core/context.js';
import { createLogger } from '../lib/logger.js';

/**
 * Who a CLI command acts as: the local process, the operator of the installation (no key). It reaches
 * every team's resources (src/core/access/access.ts), and its changes are audited as made locally.
 */
export const OPERATOR: Caller | null = null;

/** Runs `fn` on a fresh app and closes the app once `fn` has settled (its promise included). */
export async function withApp<T>(config: Config, fn: (app: OperatorDoor) => T): Promise<Awaited<T>> {
  const app = await openDoor({ ...config, monitors: false }, { logger: createLogger('silent'), follow: false });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
