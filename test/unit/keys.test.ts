import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(() => t.close());

describe('keys service', () => {
  it('stores only a hash and verifies the key', async () => {
    t = makeTestApp();
    const made = await t.app.services.keys.create(' laptop ');
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
      scopes: null,
      qps: null,
      enterprise: false,
      zeroRetention: false,
    });
    expect(await t.app.services.keys.verify(`${made.key}x`)).toBeNull();
    expect(await t.app.services.keys.verify(made.key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))).toBeNull();
    expect((await t.app.services.keys.list())[0]!.lastUsedAt).not.toBeNull();
  });

  it('revokes by id or by key, and a revoked key no longer verifies', async () => {
    t = makeTestApp();
    const a = await t.app.services.keys.create('a');
    const b = await t.app.services.keys.create('b');
    await t.app.services.keys.revoke(a.id);
    await t.app.services.keys.revoke(b.key);
    expect(await t.app.services.keys.verify(a.key)).toBeNull();
    expect(await t.app.services.keys.verify(b.key)).toBeNull();
    expect(await t.app.services.keys.countActive()).toBe(0);
    await expect(t.app.services.keys.revoke('000000000000')).rejects.toThrow(/no API key/);
  });

  it('makes a first key only when none was ever made', async () => {
    t = makeTestApp();
    const first = await t.app.services.keys.createFirst('first key');
    expect(first?.key).toMatch(/^trawl_/);
    expect(await t.app.services.keys.createFirst('first key')).toBeNull();
    await t.app.services.keys.revoke(first!.id);
    expect(await t.app.services.keys.createFirst('first key')).toBeNull();
  });

  it('rejects an empty or over-long name', async () => {
    t = makeTestApp();
    await expect(t.app.services.keys.create('  ')).rejects.toThrow(/1-100 characters/);
    await expect(t.app.services.keys.create('x'.repeat(101))).rejects.toThrow(/1-100 characters/);
  });
});
