/**
 * How the command line opens its door: the app of `config` (./app.ts: the store opened first, PostgreSQL
 * or SQLite), seen as an `OperatorDoor`: the operations, the operator's tools and the workers, without the
 * services' record or the store's handles. The app is closed through the door's `close`.
 */
import type { Config } from '../config/config.js';
import { openApp, type AppOptions } from './app.js';
import type { OperatorDoor } from './door.js';

export type { AppOptions as DoorOptions } from './app.js';

export function openDoor(config: Config, options: AppOptions = {}): Promise<OperatorDoor> {
  return openApp(config, options);
}
