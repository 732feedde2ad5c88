// Rotating the operator key (TRAWL_SECRET_KEY): with the old key as TRAWL_SECRET_KEY_PREVIOUS, what it
// sealed (the OAuth server's keys, a monitor's webhook secret) still opens; `trawl secrets reseal` (the
// operator door's reseal) seals it all under the new key, after which the old key is no longer needed
// and no longer opens anything.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createSecretBox } from '../../src/core/monitors/secret-box.js';
import { createLogger } from '../../src/lib/logger.js';
import { spawnSync } from 'node:child_process';
import { CLI, tempDir } from '../helpers/app.js';

const data = tempDir('trawl-rotation-');
const oldKey = randomBytes(32).toString('base64');
const newKey = randomBytes(32).toString('base64');
const open = (secretKey: string, secretKeyPrevious?: string) =>
  createApp(loadConfig({}, { dataDir: data.dir, logLevel: 'silent', secretKey, ...(secretKeyPrevious ? { secretKeyPrevious } : {}) }), { logger: createLogger('silent') }); // prettier-ignore

afterAll(() => data.cleanup());

describe('rotating TRAWL_SECRET_KEY', () => {
  it('keeps what the old key sealed readable until re-sealed, then needs only the new key', async () => {
    const first = open(oldKey);
    const keys = await first.oauth.secrets();
    // a monitor's webhook secret, sealed under the old key as the monitors service seals it
    first.db.prepare("INSERT INTO sealed_secrets (name, sealed, created_at) VALUES ('test.webhook', ?, '2026-11-29T00:00:00Z')").run(createSecretBox(Buffer.from(oldKey, 'base64')).seal('whsec_example')); // prettier-ignore
    await first.close();

    // the new key alone opens nothing the old one sealed
    const withoutPrevious = open(newKey);
    await expect(withoutPrevious.oauth.secrets()).rejects.toThrow(/sealed under another key/);
    await withoutPrevious.close();

    const rotating = open(newKey, oldKey);
    expect(await rotating.oauth.secrets()).toEqual(keys);
    expect(await rotating.secrets.reseal()).toEqual({ resealed: 2, kept: 0 });
    expect(await rotating.secrets.reseal()).toEqual({ resealed: 0, kept: 2 });
    await rotating.close();

    const after = open(newKey);
    expect(await after.oauth.secrets()).toEqual(keys);
    const sealed = (after.db.prepare("SELECT sealed FROM sealed_secrets WHERE name = 'test.webhook'").get() as { sealed: string }).sealed; // prettier-ignore
    expect(createSecretBox(Buffer.from(newKey, 'base64')).open(sealed)).toBe('whsec_example');
    await after.close();
    const old = open(oldKey);
    await expect(old.oauth.secrets()).rejects.toThrow(/sealed under another key/);
    await old.close();
  });

  it('stops a reseal that meets a value neither key opens, naming where it is', async () => {
    const app = open(randomBytes(32).toString('base64'), randomBytes(32).toString('base64'));
    await expect(app.secrets.reseal()).rejects.toThrow(/sealed_secrets oauth.keys opens under neither/);
    await app.close();
  });

  it('re-seals from the command line: `trawl secrets reseal`', async () => {
    const dir = tempDir('trawl-rotation-cli-');
    try {
      const app = createApp(loadConfig({}, { dataDir: dir.dir, logLevel: 'silent', secretKey: oldKey }), { logger: createLogger('silent') }); // prettier-ignore
      const keys = await app.oauth.secrets();
      await app.close();
      const env = { PATH: process.env.PATH ?? '', TRAWL_SECRET_KEY: newKey, TRAWL_SECRET_KEY_PREVIOUS: oldKey };
      const res = spawnSync(process.execPath, [CLI, 'secrets', 'reseal', '--data-dir', dir.dir], {
        encoding: 'utf8',
        env,
      });
      expect(res.status).toBe(0);
      expect(res.stdout).toBe('re-sealed 1 secret(s) under TRAWL_SECRET_KEY; 0 already were\n');
      expect(res.stderr).toContain('remove TRAWL_SECRET_KEY_PREVIOUS');
      expect(`${res.stdout}${res.stderr}`).not.toContain(newKey);
      const after = createApp(loadConfig({}, { dataDir: dir.dir, logLevel: 'silent', secretKey: newKey }), { logger: createLogger('silent') }); // prettier-ignore
      expect(await after.oauth.secrets()).toEqual(keys);
      await after.close();
    } finally {
      dir.cleanup();
    }
  });
});
