/** The accounts side of the services: API keys, teams and their limits and money, and the audit log. */
import { createAccounts, type Accounts } from '../core/accounts/accounts.service.js';
import { createAuditLog, type AuditLog } from '../core/accounts/audit.js';
import { createKeysService, type KeysService } from '../core/accounts/keys.service.js';
import type { ServiceDeps } from './service-deps.js';

export function createAccountServices(deps: ServiceDeps): { keys: KeysService; accounts: Accounts; audit: AuditLog } {
  const { stores, settings } = deps;
  const keys = createKeysService(stores.apiKeys, deps.clock, {
    teams: stores.accounts,
    identityRule: settings.identityRule,
  });
  const accounts = createAccounts({
    accounts: stores.accounts,
    keys: stores.apiKeys,
    rateBuckets: stores.rateBuckets,
    clock: deps.clock,
    logger: deps.logger,
    model: deps.model,
    modelPrice: deps.synthesis.price,
    prices: deps.prices,
    defaultQps: settings.rateLimitQps,
    maxInFlight: settings.rateLimitConcurrency,
    metering: settings.metering,
  });
  return { keys, accounts, audit: createAuditLog(stores.audit) };
}
