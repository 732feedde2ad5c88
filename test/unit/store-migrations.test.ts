/**
 * The one migration list (src/store/migrations/): the per-dialect lists derived from it are, entry by
 * entry, the migrations each runner applied before the list was one (version, name and a digest of the
 * SQL), so an existing database upgrades unchanged; every entry speaks for both dialects; each dialect's
 * versions strictly increase.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATION_ENTRIES, MIGRATIONS, PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import type { Migration } from '../../src/store/migrations/migration.js';

/** The first 16 hex digits of the SHA-256 of a migration's SQL. */
const digest = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);
const released = (list: readonly Migration[]) => list.map((m) => [m.version, m.name, digest(m.sql)]);

// read from the two hand-kept lists this one replaced (src/store/migrations/index.ts and
// src/store/pg/migrations.ts): released migrations never change, new ones are appended
const SQLITE_RELEASED = [
  [1, 'api keys', '0dc92b70e6f66020'],
  [2, 'documents', '79b82097fd453cb0'],
  [3, 'crawl jobs and frontier', '265849aadafd5ac9'],
  [4, 'search index', '0f6f6fbd1880266b'],
  [5, 'search embeddings', 'aeecb9136b505c43'],
  [6, 'code index', '4a2360b9b7fbc768'],
  [7, 'code embeddings', 'fd8c9d9af17bb45a'],
  [8, 'monitors', 'aadf18d5ecbdd16a'],
  [9, 'accounts', '554638d53f60b1ac'],
  [10, 'agent runs', '29b49c3db14af0de'],
  [11, 'mcp answer snapshots', 'c11c4770b5c7b1a5'],
  [12, 'mcp tasks', '7311e33e130620de'],
  [13, 'agent run progress', '083652aea2736498'],
  [14, 'compact search index', 'e70fb2ee82a88d99'],
  [15, 'postings in blocks', '8d058cf02ee5df25'],
  [16, 'code chunk texts in compressed blocks', '30ee68e254ccb1ab'],
  [17, 'replica state', 'cb40fa1384efb953'],
  [18, 'owners and the audit log', '636dd69ed019049c'],
  [19, 'crawl leases', '0c039e6cdd4a4c76'],
  [20, 'identity keys', 'a6e30686d06fd67e'],
  [21, 'oauth state', '69e9ed6c5f2038cf'],
  [22, 'console sessions, request latency and operator jobs', 'adf6355cae888178'],
  [23, 'retention', '05f796a97cf597a4'],
];
const PG_RELEASED = [
  [1, 'teams and API keys', '1003cfc57372ccd3'],
  [2, 'rate buckets', '9acbe01d5579c945'],
  [3, 'spend and holds', '8bcb17601eb61027'],
  [4, 'MCP answer snapshots and tasks', '914a6e4a6726f575'],
  [5, 'agent runs and their events', '5d677a1f16e48dce'],
  [6, 'monitors, their runs and the webhook outbox', 'bac3257a44feca8c'],
  [7, 'documents', 'ed21de7debdff0cd'],
  [8, 'crawl jobs and frontier', '15d0d9d0dc7b72a9'],
  [9, 'the document log', 'be37ff1227b57dd2'],
  [10, 'the shared page cache', 'fd8364641418f4bc'],
  [11, 'embeddings stored once', '8ea64fabe096b80f'],
  [12, 'the code index and its log', 'a9b60c332d2f8e79'],
  [13, "a fetched page's Markdown, for its code examples", '8d4784c98872bb3e'],
  [14, 'replicas seen', 'd7cd9da12daf23ef'],
  [15, 'owners and the audit log', '7adf63d2c83a9821'],
  [16, 'crawl leases', 'c854c936385d8a2d'],
  [17, 'identity keys', 'a6e30686d06fd67e'],
  [18, 'oauth state', '635f2535612ef006'],
  [19, 'console sessions, request latency and operator jobs', '53bf556770610f89'],
  [20, 'retention, and the growing tables partitioned by month', 'f9633e57c73dd2f9'],
];

describe('the migration list', () => {
  it('derives, for each dialect, the released migrations unchanged and in order, then any new ones', () => {
    expect(released(MIGRATIONS).slice(0, SQLITE_RELEASED.length)).toEqual(SQLITE_RELEASED);
    expect(released(PG_MIGRATIONS).slice(0, PG_RELEASED.length)).toEqual(PG_RELEASED);
  });

  it('gives every entry both dialects: a migration, or a stated reason for none', () => {
    for (const entry of MIGRATION_ENTRIES) {
      for (const side of [entry.sqlite, entry.pg]) {
        if ('none' in side) expect(side.none.trim().length, entry.id).toBeGreaterThan(10);
        else expect(side.sql.trim().length, entry.id).toBeGreaterThan(0);
      }
    }
    expect(new Set(MIGRATION_ENTRIES.map((e) => e.id)).size).toBe(MIGRATION_ENTRIES.length);
  });

  it('numbers each dialect’s migrations 1, 2, 3… along the list', () => {
    for (const list of [MIGRATIONS, PG_MIGRATIONS]) {
      expect(list.map((m) => m.version)).toEqual(list.map((_, i) => i + 1));
    }
  });
});
