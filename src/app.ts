/**
 * `createApp(config)`: the store, caches and services of one Trawl process, with `close()`. Every door
 * (HTTP, MCP stdio, CLI commands) is built on one of these; tests build a fresh one per file.
 */
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './core/context.js';
import { createServices, type Services } from './core/services.js';
import { createLogger, type Logger } from './lib/logger.js';
import { createCacheStore } from './store/cache.js';
import { openDatabase, type Db } from './store/database.js';

export interface App {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Db;
  services: Services;
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  clock?: Clock;
}

export function createApp(config: Config, options: AppOptions = {}): App {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const db = openDatabase(config.dataDir);
  const cache = createCacheStore(config.dataDir);
  const services = createServices({ db, cache, clock });
  let closed = false;
  return {
    config,
    logger,
    clock,
    db,
    services,
    async close() {
      if (closed) return;
      closed = true;
      await cache.close();
      db.close();
      logger.flush();
    },
  };
}
