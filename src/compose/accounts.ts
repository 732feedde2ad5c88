/** The accounts side of the services: API keys, teams and their limits and money, and the audit log. */
import { createAccounts, type Accounts } from '../core/accounts/accounts.service.js';
import { createAuditLog, type AuditLog } from '../core/accounts/audit.js';
import { createKeysService, type KeysService } from '../core/accounts/keys.service.js';
import { revokingOAuthGrants } from '../core/oauth/revocation.js';
import type { ServiceDeps } from './service-deps.js';

export function createAccountServices(deps: ServiceDeps): { keys: KeysService; accounts: Accounts; audit: AuditLog } {
  const { stores, settings } = deps;
  // revoking a key or blocking a team also revokes the OAuth grants made with it (core/oauth) ...
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
  const granted = revokingOAuthGrants(plain, metered.teams, stores.oauth);
  // ... and ends the console's sessions of that key or team at once (each request checks again anyway)
  const sessions = stores.consoleSessions;
  const keys: KeysService = {
    ...granted.keys,
    async revoke(idOrKey, actor) {
      const info = await granted.keys.revoke(idOrKey, actor);
      await sessions.deleteForKey(info.id);
      return info;
    },
  };
  const teams = {
    ...granted.teams,
    async block(ref: string, actor: Parameters<typeof granted.teams.block>[1]) {
      const team = await granted.teams.block(ref, actor);
      await sessions.deleteForTeam(team.id);
      return team;
    },
  };
  return { keys, accounts: { ...metered, teams }, audit: createAuditLog(stores.audit) };
}
