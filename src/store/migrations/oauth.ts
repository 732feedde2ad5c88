/**
 * Migrations of Trawl's own OAuth 2.1 authorization server (issue 35): what oidc-provider keeps
 * (clients, grants, sessions, interactions, authorization codes, refresh tokens) in one table keyed by
 * kind and id, and the sealed secrets every replica shares (the signing keys and cookie keys).
 */
import type { Migration, MigrationEntry } from './migration.js';

/** The OAuth tables, alike in both dialects but for the integer type. */
const oauthState = (version: number, integer: 'INTEGER' | 'BIGINT'): Migration => ({
  version,
  name: 'oauth state',
  sql: `
      -- one row per oidc-provider model instance: kind (Grant, Session, RefreshToken, ...) and id
      CREATE TABLE oauth_state (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        payload TEXT NOT NULL,
        grant_id TEXT,
        uid TEXT,
        user_code TEXT,
        -- the Trawl API key id the person signed in with (revoking the key deletes its rows)
        account_id TEXT,
        expires_at_ms ${integer},
        consumed_at_ms ${integer},
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX oauth_state_grant ON oauth_state (grant_id);
      CREATE INDEX oauth_state_uid ON oauth_state (kind, uid);
      CREATE INDEX oauth_state_account ON oauth_state (account_id);
      CREATE INDEX oauth_state_expiry ON oauth_state (expires_at_ms);
      -- secrets sealed with the operator key (TRAWL_SECRET_KEY), shared by every replica
      CREATE TABLE sealed_secrets (
        name TEXT PRIMARY KEY,
        sealed TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
});

export const OAUTH: readonly MigrationEntry[] = [
  { id: 'oauth-state', sqlite: oauthState(21, 'INTEGER'), pg: oauthState(18, 'BIGINT') },
];
