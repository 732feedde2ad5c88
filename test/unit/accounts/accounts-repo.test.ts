/**
 * The accounts repositories' atomic units on a real SQLite store: holding money only when the standing
 * read in the same transaction allows it, settling a charge, editing a team, making the first key once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccountsRepo, type HoldRequest, type Standing } from '../../../src/store/accounts.repo.js';
import { createApiKeysRepo } from '../../../src/store/api-keys.repo.js';
import { openDatabase } from '../../../src/store/database.js';

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function openStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-accounts-'));
  const db = openDatabase(dir);
  cleanups.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { accounts: createAccountsRepo(db), keys: createApiKeysRepo(db) };
}

const NOW = Date.parse('2026-03-15T12:00:00Z');
const STARTS = { day: '2026-03-15', month: '2026-03-01' };

const holdOf = (id: string, micros: number): HoldRequest => ({
  hold: { id, key_id: 'k1', team_id: 'team_default', amount_micros: micros, expires_ms: NOW + 60_000 },
  nowMs: NOW,
  keyPeriod: 'day',
  periodStarts: STARTS,
});

describe('AccountsRepo', () => {
  it('holds money only when the standing read in the same transaction allows it', async () => {
    const { accounts } = openStore();
    const seen: Standing[] = [];
    await accounts.holdIfAllowed(holdOf('h1', 300), (s) => void seen.push(s));
    const refuse = (s: Standing) => {
      seen.push(s);
      throw new Error('no');
    };
    await expect(accounts.holdIfAllowed(holdOf('h2', 500), refuse)).rejects.toThrow('no');
    await accounts.holdIfAllowed(holdOf('h3', 1), (s) => void seen.push(s));
    expect(seen.map((s) => [s.teamHolds, s.keyHolds])).toEqual([
      [0, 0],
      [300, 300],
      [300, 300], // the refused hold left nothing behind
    ]);
    expect(seen[0]!.team.id).toBe('team_default');
  });

  it('settles a charge in one go: the hold released, the spend recorded, the credits taken', async () => {
    const { accounts } = openStore();
    await accounts.addCredits('team_default', 1_000);
    await accounts.holdIfAllowed(holdOf('h1', 400), () => undefined);
    await accounts.settle({
      holdId: 'h1',
      spend: { key_id: 'k1', team_id: 'team_default', day: STARTS.day, operation: 'search', micros: 250 },
    });
    expect((await accounts.team('team_default'))!.credits_micros).toBe(750);
    const standing: Standing[] = [];
    await accounts.holdIfAllowed(holdOf('h2', 1), (s) => void standing.push(s));
    expect(standing[0]).toMatchObject({ teamHolds: 0, keySpend: 250 });
    expect(await accounts.spendSince(STARTS.day)).toMatchObject([{ operation: 'search', requests: 1, micros: 250 }]);
  });

  it('edits a team found by id or name, and says when there is none', async () => {
    const { accounts } = openStore();
    const edited = await accounts.updateTeam('default', (row) => ({ ...row, enterprise: 1 }));
    expect(edited).toMatchObject({ id: 'team_default', enterprise: 1 });
    expect(await accounts.updateTeam('nobody', (row) => row)).toBeUndefined();
  });
});

describe('ApiKeysRepo', () => {
  it('makes the first key only into an empty table', async () => {
    const { keys } = openStore();
    const row = (id: string) => ({ id, name: 'first key', hash: id.repeat(4), created_at: '2026-03-15T12:00:00Z' });
    expect(await keys.insertIfEmpty(row('a'))).toBe(true);
    expect(await keys.insertIfEmpty(row('b'))).toBe(false);
    expect((await keys.list()).map((k) => k.id)).toEqual(['a']);
  });
});
