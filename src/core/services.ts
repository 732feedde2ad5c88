/**
 * The core services, built once per app from the store and handed to every operation. Later
 * capabilities (contents, search, monitors, agent) add their service here.
 */
import type { CacheStore } from '../store/cache.js';
import type { Db } from '../store/database.js';
import { createApiKeysRepo } from '../store/api-keys.repo.js';
import { createKeysService, type KeysService } from './accounts/keys.service.js';
import type { Clock } from './context.js';

export interface Services {
  keys: KeysService;
  cache: CacheStore;
}

export function createServices(deps: { db: Db; cache: CacheStore; clock: Clock }): Services {
  return {
    keys: createKeysService(createApiKeysRepo(deps.db), deps.clock),
    cache: deps.cache,
  };
}
