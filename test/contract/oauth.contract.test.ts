// One contract for the OAuth store (Trawl's own authorization server), run against each backend:
// SQLite in a temp dir always, PostgreSQL (a schema of its own) where a server answers.
import { describe, expect, it } from 'vitest';
import { createApiKeysRepo } from '../../src/store/sqlite/api-keys.js';
import { createOAuthRepo } from '../../src/store/sqlite/oauth.js';
import { createPgApiKeysRepo } from '../../src/store/pg/api-keys.js';
import { createPgOAuthRepo } from '../../src/store/pg/oauth.js';
import { createSealedValuesRepo } from '../../src/store/sqlite/sealed-values.js';
import { createPgSealedValuesRepo } from '../../src/store/pg/sealed-values.js';
import type { OAuthStateRow } from '../../src/store/contracts/oauth.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(
  (db) => ({ oauth: createOAuthRepo(db), keys: createApiKeysRepo(db), sealed: createSealedValuesRepo(db) }),
  (pool) => ({
    oauth: createPgOAuthRepo(pool),
    keys: createPgApiKeysRepo(pool),
    sealed: createPgSealedValuesRepo(pool),
  }),
);

const NOW = 1_800_000_000_000;
const row = (kind: string, id: string, extra: Partial<OAuthStateRow> = {}): OAuthStateRow => ({
  kind,
  id,
  payload: JSON.stringify({ kind, id }),
  grantId: null,
  uid: null,
  userCode: null,
  accountId: null,
  expiresAtMs: NOW + 60_000,
  consumedAtMs: null,
  ...extra,
});

describe.each(backends)('OAuth store on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('upserts, finds live rows by id, uid and user code, consumes and destroys', async () => {
    const { repo, second } = await each.open();
    const { oauth } = repo;
    await oauth.upsert(row('Session', 's1', { uid: 'u1', accountId: 'k1' }));
    await oauth.upsert(row('DeviceCode', 'd1', { userCode: 'ABCD' }));
    await oauth.upsert(row('AuthorizationCode', 'gone', { expiresAtMs: NOW - 1 }));
    // another replica sees the same rows
    const other = second().oauth;
    expect(await other.find('Session', 's1', NOW)).toEqual(row('Session', 's1', { uid: 'u1', accountId: 'k1' }));
    expect((await other.findByUid('Session', 'u1', NOW))?.id).toBe('s1');
    expect(await other.findByUid('Interaction', 'u1', NOW)).toBeUndefined();
    expect((await other.findByUserCode('DeviceCode', 'ABCD', NOW))?.id).toBe('d1');
    expect(await other.find('AuthorizationCode', 'gone', NOW)).toBeUndefined();
    // a re-save replaces the payload
    await oauth.upsert(row('Session', 's1', { uid: 'u1', accountId: 'k1', payload: '{"v":2}' }));
    expect((await other.find('Session', 's1', NOW))?.payload).toBe('{"v":2}');
    await oauth.consume('Session', 's1', NOW + 5);
    expect((await other.find('Session', 's1', NOW))?.consumedAtMs).toBe(NOW + 5);
    await oauth.destroy('Session', 's1');
    expect(await other.find('Session', 's1', NOW)).toBeUndefined();
    // rows without expiry live until destroyed, and pruning takes only the expired
    await oauth.upsert(row('Client', 'c1', { expiresAtMs: null }));
    expect(await oauth.pruneExpired(NOW)).toBe(1);
    expect(await oauth.find('Client', 'c1', NOW + 10 ** 12)).toBeDefined();
  });

  it.runIf(available)('revokes by grant, by account and by team', async () => {
    const { repo } = await each.open();
    const { oauth, keys } = repo;
    await keys.insert({ id: 'ka', name: 'a', hash: 'ha', created_at: '2026-11-26T10:00:00.000Z' });
    await keys.insert({ id: 'kb', name: 'b', hash: 'hb', created_at: '2026-11-26T10:00:00.000Z' });
    await oauth.upsert(row('Grant', 'g1', { grantId: 'g1', accountId: 'ka' }));
    await oauth.upsert(row('RefreshToken', 'r1', { grantId: 'g1', accountId: 'ka' }));
    await oauth.upsert(row('AuthorizationCode', 'c1', { grantId: 'g1', accountId: 'ka' }));
    await oauth.upsert(row('Grant', 'g2', { grantId: 'g2', accountId: 'kb' }));
    await oauth.upsert(row('RefreshToken', 'r2', { grantId: 'g2', accountId: 'kb' }));
    await oauth.upsert(row('Session', 's2', { accountId: 'kb' }));
    await oauth.upsert(row('Client', 'cl', { expiresAtMs: null }));
    expect(await oauth.revokeByGrantId('g1')).toBe(3);
    expect(await oauth.find('Grant', 'g2', NOW)).toBeDefined();
    await oauth.upsert(row('RefreshToken', 'r3', { grantId: 'g3', accountId: 'ka' }));
    expect(await oauth.revokeByAccount('ka')).toBe(1);
    expect(await oauth.revokeByTeam('team_other')).toBe(0);
    expect(await oauth.revokeByTeam('team_default')).toBe(3);
    expect(await oauth.find('Client', 'cl', NOW)).toBeDefined();
  });

  it.runIf(available)('keeps the first sealed secret of a name, lists and replaces them conditionally', async () => {
    const { repo, second } = await each.open();
    const at = '2026-11-26T10:00:00.000Z';
    expect(await repo.oauth.getSecret('oauth.jwks')).toBeUndefined();
    const first = await repo.oauth.putSecretIfAbsent({ name: 'oauth.jwks', sealed: 'one', createdAt: at });
    const lost = await second().oauth.putSecretIfAbsent({ name: 'oauth.jwks', sealed: 'two', createdAt: at });
    expect(first).toEqual({ name: 'oauth.jwks', sealed: 'one', createdAt: at });
    expect(lost.sealed).toBe('one');
    expect(await repo.oauth.replaceSecret('oauth.jwks', 'two', 'three')).toBe(false);
    expect(await repo.oauth.replaceSecret('oauth.jwks', 'one', 'three')).toBe(true);
    expect(await repo.oauth.listSecrets()).toEqual([{ name: 'oauth.jwks', sealed: 'three', createdAt: at }]);
  });

  it.runIf(available)('lists every sealed value and replaces one only while it is unchanged', async () => {
    const { repo } = await each.open();
    const at = '2026-11-26T10:00:00.000Z';
    await repo.oauth.putSecretIfAbsent({ name: 'b', sealed: 'sealed-b', createdAt: at });
    await repo.oauth.putSecretIfAbsent({ name: 'a', sealed: 'sealed-a', createdAt: at });
    const values = await repo.sealed.list();
    expect(values).toEqual([
      { table: 'sealed_secrets', key: 'a', sealed: 'sealed-a' },
      { table: 'sealed_secrets', key: 'b', sealed: 'sealed-b' },
    ]);
    expect(await repo.sealed.replace(values[0]!, 'resealed-a')).toBe(true);
    expect(await repo.sealed.replace(values[0]!, 'again')).toBe(false);
    expect((await repo.oauth.getSecret('a'))?.sealed).toBe('resealed-a');
  });
});
