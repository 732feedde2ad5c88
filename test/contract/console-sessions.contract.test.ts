// The console's sessions, on SQLite and on PostgreSQL, through the service that uses them
// (src/core/accounts/console-sessions.ts): found by the cookie's value and never stored as it, moved on
// by use but never past a day, ended by idleness, sign-out, a revoked key or a blocked team.
import { describe, expect, it } from 'vitest';
import { createConsoleSessions } from '../../src/core/accounts/console-sessions.js';
import type { Caller } from '../../src/core/context.js';
import { createPgConsoleSessionsRepo } from '../../src/store/pg/console-sessions.js';
import { createConsoleSessionsRepo } from '../../src/store/sqlite/console-sessions.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createConsoleSessionsRepo, createPgConsoleSessionsRepo);
const MINUTE = 60_000;

const callerOf = (keyId: string, teamId = 'team_a'): Caller => ({
  keyId,
  keyName: keyId,
  teamId,
  scopes: ['search', 'monitors', 'admin:team'],
  qps: null,
  enterprise: false,
  zeroRetention: false,
});

describe.each(backends)('console sessions on %s', (_name, available, open) => {
  const each = perTest(open);

  async function setup(idleMs = 30 * MINUTE) {
    const { repo } = await each.open();
    let now = Date.parse('2026-03-15T12:00:00Z');
    const live = new Set(['k1', 'k2']);
    const keys = { callerOf: async (id: string) => (live.has(id) ? callerOf(id) : null) };
    const sessions = createConsoleSessions(repo, keys, { now: () => new Date(now) }, { idleMs });
    return { repo, sessions, live, advance: (ms: number) => void (now += ms) };
  }

  it.runIf(available)('keeps only a hash of the value, and resolves the value to its key', async () => {
    const { repo, sessions } = await setup();
    const opened = await sessions.open(callerOf('k1'));
    expect(opened.token).toMatch(/^tcs_[A-Za-z0-9_-]{43}$/);
    const resolved = await sessions.resolve(opened.token);
    expect(resolved).toMatchObject({ csrf: opened.csrf, caller: { keyId: 'k1' } });
    expect(await repo.get(opened.token)).toBeUndefined();
    expect(await sessions.resolve(`${opened.token.slice(0, -1)}A`)).toBeNull();
    expect(await sessions.resolve('not-a-session')).toBeNull();
  });

  it.runIf(available)('narrows an OAuth sign-in to the granted scopes, re-read with the key', async () => {
    const { sessions } = await setup();
    const opened = await sessions.open(callerOf('k1'), ['search', 'admin']);
    // `admin` was never the key's: a grant cannot widen it
    expect((await sessions.resolve(opened.token))?.caller.scopes).toEqual(['search']);
  });

  it.runIf(available)('ends when idle, moves on with use, and never lives past a day', async () => {
    const { sessions, advance } = await setup(30 * MINUTE);
    const idle = await sessions.open(callerOf('k1'));
    advance(31 * MINUTE);
    expect(await sessions.resolve(idle.token)).toBeNull();

    const busy = await sessions.open(callerOf('k1'));
    for (let i = 0; i < 49; i++) {
      advance(29 * MINUTE);
      expect(await sessions.resolve(busy.token), `after ${(i + 1) * 29} minutes`).not.toBeNull();
    }
    advance(29 * MINUTE); // 24 h 10 min since it opened
    expect(await sessions.resolve(busy.token)).toBeNull();
  });

  it.runIf(available)('ends on sign-out, when its key is revoked, and for a whole team', async () => {
    const { sessions, live } = await setup();
    const out = await sessions.open(callerOf('k1'));
    await sessions.close(out.token);
    expect(await sessions.resolve(out.token)).toBeNull();

    const revoked = await sessions.open(callerOf('k2'));
    live.delete('k2');
    expect(await sessions.resolve(revoked.token)).toBeNull();

    const one = await sessions.open(callerOf('k1'));
    const two = await sessions.open(callerOf('k1'));
    const other = await sessions.open(callerOf('k1', 'team_b'));
    expect(await sessions.closeForTeam('team_a')).toBe(2);
    expect(await sessions.resolve(one.token)).toBeNull();
    expect(await sessions.resolve(two.token)).toBeNull();
    expect(await sessions.resolve(other.token)).not.toBeNull();
    expect(await sessions.closeForKey('k1')).toBe(1);
  });

  it.runIf(available)('sweeps the sessions that are over on each sign-in', async () => {
    const { repo, sessions, advance } = await setup(10 * MINUTE);
    await sessions.open(callerOf('k1'));
    await sessions.open(callerOf('k1'));
    advance(11 * MINUTE);
    const fresh = await sessions.open(callerOf('k1'));
    // the two that were over are gone already: nothing is left to drop but what ends later
    expect(await repo.deleteExpired(Date.parse('2026-03-15T12:11:00Z') + 1)).toBe(0);
    expect(await sessions.resolve(fresh.token)).not.toBeNull();
    advance(11 * MINUTE);
    expect(await repo.deleteExpired(Date.parse('2026-03-15T12:22:00Z'))).toBe(1);
  });
});
