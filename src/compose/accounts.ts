/** The accounts side of the services: API keys, teams and their limits and money, and the audit log. */
import { createAccounts, type Accounts } from '../core/accounts/accounts.service.js';
import { createAuditLog, type AuditLog } from '../core/accounts/audit.js';
import { createKeysService, type KeysService } from '../core/accounts/keys.service.js';
import { revokingOAuthGrants } from '../core/oauth/revocation.js';
import type { ServiceDeps } from './service-deps.js';

export function createAccountServices(deps: ServiceDeps): { keys: KeysService; accounts: Accounts; audit: AuditLog } {
  const { stores, settings } = deps;
  // revoking a key or blocking a team also revokes the OAuth grants made with it (core/oauth)
  const plain = createKeysService(stores.apiKeys, deps.clock, {
    teams: stores.accounts,
    identityRule: settings.identityRule,
  });
  const metered = createAccounts({
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
  const { keys, teams } = revokingOAuthGrants(plain, metered.teams, stores.oauth);
  return { keys, accounts: { ...metered, teams }, audit: createAuditLog(stores.audit) };
}
