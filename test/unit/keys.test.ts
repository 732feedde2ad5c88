import { afterEach, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/core/access/scopes.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(() => t.close());

describe('keys service', () => {
  it('stores only a hash and verifies the key', async () => {
    t = makeTestApp();
    const made = await t.app.services.keys.create(' laptop ', {}, null);
    expect(made.name).toBe('laptop');
    const rows = t.app.db.prepare('SELECT * FROM api_keys').all() as Record<string, string>[];
    // the secret is base64url and may itself contain '_': everything after `trawl_<id>_`
    const secret = made.key.slice(`trawl_${made.id}_`.length);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await t.app.services.keys.verify(made.key)).toEqual({
      keyId: made.id,
      keyName: 'laptop',
      teamId: 'team_default',
      // least privilege: a key made without scopes has every scope but the admin ones
      scopes: ['search', 'contents', 'context', 'monitors', 'agent'],
      qps: null,
      enterprise: false,
      zeroRetention: false,
    });
    expect(await t.app.services.keys.verify(`${made.key}x`)).toBeNull();
    expect(await t.app.services.keys.verify(made.key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).toBeNull();
    expect((await t.app.services.keys.list(null))[0]!.lastUsedAt).not.toBeNull();
  });

  it('revokes by id or by key, and a revoked key no longer verifies', async () => {
    t = makeTestApp();
    const a = await t.app.services.keys.create('a', {}, null);
    const b = await t.app.services.keys.create('b', {}, null);
    await t.app.services.keys.revoke(a.id, null);
    await t.app.services.keys.revoke(b.key, null);
    expect(await t.app.services.keys.verify(a.key)).toBeNull();
    expect(await t.app.services.keys.verify(b.key)).toBeNull();
    expect(await t.app.services.keys.countActive()).toBe(0);
    await expect(t.app.services.keys.revoke('000000000000', null)).rejects.toThrow(/API key 000000000000 not found/);
  });

  it('makes a first key only when none was ever made', async () => {
    t = makeTestApp();
    const first = await t.app.services.keys.createFirst('first key');
    expect(first?.key).toMatch(/^trawl_/);
    // the operator's key: every scope, admin included
    expect(first).toMatchObject({ admin: true, scopes: [...SCOPES] });
    expect(await t.app.services.keys.createFirst('first key')).toBeNull();
    await t.app.services.keys.revoke(first!.id, null);
    expect(await t.app.services.keys.createFirst('first key')).toBeNull();
  });

  it('rejects an empty or over-long name', async () => {
    t = makeTestApp();
    await expect(t.app.services.keys.create('  ', {}, null)).rejects.toThrow(/1-100 characters/);
    await expect(t.app.services.keys.create('x'.repeat(101), {}, null)).rejects.toThrow(/1-100 characters/);
  });
});
