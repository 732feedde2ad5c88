// One contract for teams, spend and holds, on SQLite and on PostgreSQL: a hold only when the standing
// read in the same transaction allows it, a charge settled in one go, a team edited by id or name, and
// holds racing from several handles (processes, replicas) that never hold the same money twice.
import { describe, expect, it } from 'vitest';
import { createAccountsRepo } from '../../src/store/sqlite/accounts.js';
import type { HoldRequest, Standing } from '../../src/store/contracts/accounts.js'; // prettier-ignore
import { createPgAccountsRepo } from '../../src/store/pg/accounts.js';
import { backendsFor, perTest } from './backends.js';

const backends = backendsFor(createAccountsRepo, createPgAccountsRepo);
const NOW = Date.parse('2026-03-15T12:00:00Z');
const STARTS = { day: '2026-03-15', month: '2026-03-01' };
const holdOf = (id: string, micros: number, key = 'k1'): HoldRequest => ({
  hold: { id, key_id: key, team_id: 'team_default', amount_micros: micros, expires_ms: NOW + 60_000 },
  nowMs: NOW,
  keyPeriod: 'day',
  periodStarts: STARTS,
});

describe.each(backends)('accounts repository on %s', (_name, available, open) => {
  const each = perTest(open);

  it.runIf(available)('holds money only when the standing read in the same transaction allows it', async () => {
    const backend = await each.open();
    const accounts = backend.repo;
    const seen: Standing[] = [];
    await accounts.holdIfAllowed(holdOf('h1', 300), (s) => void seen.push(s));
    const refuse = (s: Standing) => {
      seen.push(s);
      throw new Error('no');
    };
    await expect(accounts.holdIfAllowed(holdOf('h2', 500), refuse)).rejects.toThrow('no');
    await accounts.holdIfAllowed(holdOf('h3', 1, 'k2'), (s) => void seen.push(s));
    expect(seen.map((s) => [s.teamHolds, s.keyHolds])).toEqual([
      [0, 0],
      [300, 300],
      [300, 0], // the refused hold left nothing behind; k2 holds nothing yet
    ]);
    expect(seen[0]!.team).toMatchObject({ id: 'team_default', name: 'default', credits_micros: null });
    expect(await accounts.dropExpiredHolds(NOW + 60_000)).toBe(2);
  });

  it.runIf(available)(
    'settles a charge in one go: the hold released, the spend recorded, the credits taken',
    async () => {
      const backend = await each.open();
      const accounts = backend.repo;
      expect(await accounts.addCredits('team_default', 1_000)).toMatchObject({ credits_micros: 1_000 });
      await accounts.holdIfAllowed(holdOf('h1', 400), () => undefined);
      const charge = { key_id: 'k1', team_id: 'team_default', day: STARTS.day, operation: 'search', micros: 250 };
      await accounts.settle({ holdId: 'h1', spend: charge });
      await accounts.settle({ spend: charge });
      expect((await accounts.team('team_default'))!.credits_micros).toBe(500);
      const standing: Standing[] = [];
      await accounts.holdIfAllowed(holdOf('h2', 1), (s) => void standing.push(s));
      expect(standing[0]).toMatchObject({ teamHolds: 0, keySpend: 500, teamSpend: 0 }); // the team has no budget period
      expect(await accounts.spendSince(STARTS.day)).toEqual([{ ...charge, requests: 2, micros: 500 }]);
      expect(await accounts.spendSince('2026-03-16')).toEqual([]);
    },
  );

  it.runIf(available)(
    'counts a charged request in its latency bucket with its spend, and reads both back by days and team',
    async () => {
      const backend = await each.open();
      const [a, b] = [backend.repo, backend.second()];
      const spend = (day: string, key = 'k1', team = 'team_default') => ({ key_id: key, team_id: team, day, operation: 'search', micros: 5_000 }); // prettier-ignore
      await a.settle({ spend: spend('2026-03-14'), latencyBucket: 7 });
      await b.settle({ spend: spend('2026-03-15'), latencyBucket: 7 });
      await a.settle({ spend: spend('2026-03-15'), latencyBucket: 7 });
      await b.settle({ spend: spend('2026-03-15'), latencyBucket: 20 });
      await a.settle({ spend: spend('2026-03-15', 'k9', 'team_x'), latencyBucket: 3 });
      await a.settle({ spend: { ...spend('2026-03-15'), micros: 0 }, latencyBucket: 1 }); // free: neither is counted
      await a.settle({ spend: spend('2026-03-16') }); // no bucket: the spend alone
      const latency = await b.latencyBetween('2026-03-15', '2026-03-15', 'team_default');
      expect(latency).toEqual([
        { key_id: 'k1', team_id: 'team_default', day: '2026-03-15', operation: 'search', bucket: 7, requests: 2 },
        { key_id: 'k1', team_id: 'team_default', day: '2026-03-15', operation: 'search', bucket: 20, requests: 1 },
      ]);
      expect((await a.latencyBetween('2026-03-14', '2026-03-16')).map((r) => [r.day, r.key_id, r.bucket, r.requests])).toEqual([
        ['2026-03-14', 'k1', 7, 1],
        ['2026-03-15', 'k1', 7, 2],
        ['2026-03-15', 'k1', 20, 1],
        ['2026-03-15', 'k9', 3, 1],
      ]); // prettier-ignore
      const between = await b.spendBetween('2026-03-15', '2026-03-16', 'team_default');
      expect(between.map((r) => [r.day, r.key_id, r.requests, r.micros])).toEqual([
        ['2026-03-15', 'k1', 3, 15_000],
        ['2026-03-16', 'k1', 1, 5_000],
      ]);
      expect(await a.spendBetween('2026-03-17', '2026-03-20')).toEqual([]);
      expect((await a.spendBetween('2026-03-15', '2026-03-15')).map((r) => r.team_id)).toEqual([
        'team_default',
        'team_x',
      ]);
    },
  );

  it.runIf(available)('adds teams, and edits one found by id or name, saying when there is none', async () => {
    const backend = await each.open();
    const accounts = backend.repo;
    const team = { id: 'team_x', name: 'x', enterprise: 0, zero_retention: 1, credits_micros: 5, budget_micros: 9_000_000_000, budget_period: 'month', created_at: '2027-01-01T00:00:00.000Z' }; // prettier-ignore
    await accounts.insertTeam(team);
    expect(await accounts.teamByName('x')).toEqual({ ...team, blocked_at: null });
    expect((await accounts.teams()).map((t) => t.id)).toEqual(['team_default', 'team_x']);
    const edited = await accounts.updateTeam('default', (row) => ({ ...row, enterprise: 1 }));
    expect(edited).toMatchObject({ id: 'team_default', enterprise: 1 });
    expect(await accounts.updateTeam('team_x', (row) => ({ ...row, blocked_at: 'now' }))).toMatchObject({ blocked_at: 'now' }); // prettier-ignore
    expect(await accounts.updateTeam('nobody', (row) => row)).toBeUndefined();
    expect(await accounts.addCredits('nobody', 1)).toBeUndefined();
  });

  it.runIf(available)('never holds the same money twice when holds race from many handles', async () => {
    const backend = await each.open();
    await backend.repo.addCredits('team_default', 1_000);
    const handles = [backend.repo, ...Array.from({ length: 3 }, () => backend.second())];
    const allow = (s: Standing) => {
      if ((s.team.credits_micros ?? 0) - s.teamHolds < 100) throw new Error('not enough credits');
    };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => handles[i % handles.length]!.holdIfAllowed(holdOf(`r${i}`, 100), allow)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const after: Standing[] = [];
    await backend.repo.holdIfAllowed(holdOf('last', 0), (s) => void after.push(s));
    expect(after[0]!.teamHolds).toBe(1_000);
  });
});
