/**
 * Migrations after the crawl leases: a person signed in through an external OAuth issuer acts as a key of
 * their team made on first use (src/core/accounts/identity.ts), found again by the identity it stands for.
 */
import type { Migration, MigrationEntry } from './migration.js';

/** The identity column of `api_keys`, alike in both dialects. */
const identityKeys = (version: number): Migration => ({
  version,
  name: 'identity keys',
  sql: `
      -- "<issuer> <sub>" of the person a key stands for; NULL for keys made by name
      ALTER TABLE api_keys ADD COLUMN identity TEXT;
      -- one key per person and team: found again on every sign-in, and a revoked one stays refused
      CREATE UNIQUE INDEX api_keys_identity ON api_keys (identity, team_id) WHERE identity IS NOT NULL;
    `,
});

export const IDENTITY_KEYS: readonly MigrationEntry[] = [
  { id: 'identity-keys', sqlite: identityKeys(20), pg: identityKeys(17) },
];
