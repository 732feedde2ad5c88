// One contract for the API keys repository, run against each backend: SQLite in a temp dir always,
// PostgreSQL (a schema of its own) where a server answers, which CI makes so.
import { describe, expect, it } from 'vitest';
import { createApiKeysRepo } from '../../src/store/sqlite/api-keys.js';
import { createPgApiKeysRepo } from '../../src/store/pg/api-keys.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createApiKeysRepo, createPgApiKeysRepo);

const T0 = '2026-11-26T10:00:00.000Z';
const key = (id: string, at = T0) => ({ id, name: `key ${id}`, hash: `hash-${id}`, created_at: at });

describe.each(backends)('API keys repository on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)(
    'stores keys with their defaults, lists them in order, and reads a key with its team',
    async () => {
      const backend = await each.open();
      const { repo } = backend;
      await repo.insert(key('b', '2026-11-26T10:00:01.000Z'));
      await repo.insert({
        ...key('a'),
        scopes: '["search"]',
        budget_micros: 2_500_000,
        budget_period: 'day',
        qps: 2.5,
      });
      expect((await repo.list()).map((k) => k.id)).toEqual(['a', 'b']);
      expect(await repo.get('a')).toEqual({
      id: 'a', name: 'key a', hash: 'hash-a', created_at: T0, last_used_at: null, revoked_at: null,
      team_id: 'team_default', scopes: '["search"]', budget_micros: 2_500_000, budget_period: 'day', qps: 2.5,
      identity: null,
    }); // prettier-ignore
      expect(await repo.get('nope')).toBeUndefined();
      const withTeam = await repo.getWithTeam('b');
      expect(withTeam).toMatchObject({ id: 'b', team_name: 'default', team_blocked_at: null, team_enterprise: 0, team_zero_retention: 0 }); // prettier-ignore
      expect((await repo.listOfTeam('team_default')).map((k) => k.id)).toEqual(['a', 'b']);
      expect(await repo.listOfTeam('team_other')).toEqual([]);
    },
  );

  it.runIf(available)('revokes once, counts active keys, and records use', async () => {
    const backend = await each.open();
    const { repo } = backend;
    await repo.insert(key('a'));
    await repo.insert(key('b'));
    expect(await repo.countActive()).toBe(2);
    expect(await repo.revoke('a', '2026-11-26T11:00:00.000Z')).toBe(true);
    expect(await repo.revoke('a', '2026-11-26T12:00:00.000Z')).toBe(false);
    expect(await repo.revoke('nope', '2026-11-26T12:00:00.000Z')).toBe(false);
    expect((await repo.get('a'))!.revoked_at).toBe('2026-11-26T11:00:00.000Z');
    expect(await repo.countActive()).toBe(1);
    await repo.touch('b', '2026-11-26T13:00:00.000Z');
    expect((await repo.get('b'))!.last_used_at).toBe('2026-11-26T13:00:00.000Z');
  });

  it.runIf(available)(
    'makes one key per person and team, however many first sign-ins race, and finds it again',
    async () => {
      const backend = await each.open();
      const handles = [backend.repo, ...Array.from({ length: 4 }, () => backend.second())];
      const person = 'https://idp.example carol';
      const made = await Promise.all(
        handles.map((repo, i) =>
          repo.insertIdentity({ ...key(`p${i}`), team_id: 'team_default', scopes: '["search"]', identity: person }),
        ),
      );
      const ids = new Set(made.map((row) => row.id));
      expect(ids.size).toBe(1);
      expect(made[0]).toMatchObject({
        identity: person,
        team_id: 'team_default',
        team_name: 'default',
        revoked_at: null,
      });
      expect((await backend.repo.getIdentity(person, 'team_default'))!.id).toBe(made[0]!.id);
      expect(await backend.repo.getIdentity(person, 'team_other')).toBeUndefined();
      expect(await backend.repo.getIdentity('https://idp.example dave', 'team_default')).toBeUndefined();
      // a revoked key stays the person's: found again, not made anew
      await backend.repo.revoke(made[0]!.id, T0);
      const again = await backend.repo.insertIdentity({ ...key('later'), team_id: 'team_default', identity: person });
      expect(again).toMatchObject({ id: made[0]!.id, revoked_at: T0 });
      expect(await backend.repo.countActive()).toBe(0);
    },
  );

  it.runIf(available)('makes one first key when many starts race on an empty database', async () => {
    const backend = await each.open();
    const handles = [backend.repo, ...Array.from({ length: 5 }, () => backend.second())];
    const made = await Promise.all(
      handles.map((repo, i) => repo.insertIfEmpty({ ...key(`first${i}`), scopes: '["admin"]' })),
    );
    expect(made.filter(Boolean)).toHaveLength(1);
    expect(await backend.repo.list()).toHaveLength(1);
    expect(await backend.repo.insertIfEmpty({ ...key('later'), scopes: null })).toBe(false);
  });
});
