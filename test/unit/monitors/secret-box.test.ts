import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox, loadOperatorKey, parsePreviousKey } from '../../../src/core/monitors/secret-box.js';

const run = promisify(execFile);
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-secret-box-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Flips one bit of the decoded part `index` (1 IV, 2 tag, 3 ciphertext) of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);

  it('round-trips, with a fresh IV every time', () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    const a = box.seal(secret);
    const b = box.seal(secret);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret);
    expect(box.open(a)).toBe(secret);
    expect(box.open(b)).toBe(secret);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('café 東京'))).toBe('café 東京');
  });

  it('detects tampering with the IV, the tag or the ciphertext', () => {
    const sealed = box.seal('whsec_secret-value');
    for (const index of [1, 2, 3]) {
      expect(() => box.open(flip(sealed, index))).toThrow(/altered or sealed under another key/);
    }
  });

  it('fails under another key, without secret material in the message', () => {
    const sealed = box.seal('whsec_secret-value');
    let message = '';
    try {
      createSecretBox(randomBytes(32)).open(sealed);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/altered or sealed under another key/);
    expect(message).not.toContain('whsec_');
    expect(message).not.toContain(sealed.split('.')[3]);
  });

  it('refuses unknown formats and wrong key sizes', () => {
    const sealed = box.seal('x');
    for (const bad of ['', 'whsec_plain', `v2${sealed.slice(2)}`, `${sealed}.extra`, 'v1.a.b', 'v1.!!.??.**']) {
      expect(() => box.open(bad), bad).toThrow(/not a sealed secret/);
    }
    expect(() => box.open(`v1.AAAA.${sealed.split('.').slice(2).join('.')}`)).toThrow(/malformed/);
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32-byte key/);
  });
});

describe('operator key', () => {
  const key = randomBytes(32);

  it('reads TRAWL_SECRET_KEY as base64 (standard or URL-safe, padded or not) or 64 hex characters', () => {
    const dataDir = tempDir();
    for (const configured of [
      key.toString('base64'),
      key.toString('base64url'),
      key.toString('base64').replace(/=+$/, ''),
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      ` ${key.toString('base64')}\n`,
    ]) {
      expect(loadOperatorKey({ configured, dataDir }).equals(key), configured).toBe(true);
    }
    // A configured key never creates the file.
    expect(fs.existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
  });

  it('refuses anything else, naming TRAWL_SECRET_KEY and the expected form but not the value', () => {
    const dataDir = tempDir();
    for (const configured of [
      'hunter2',
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      key.toString('hex').slice(1),
      `${key.toString('base64').slice(0, 42)}B=`,
    ]) {
      let message = '';
      try {
        loadOperatorKey({ configured, dataDir });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, configured).toMatch(/TRAWL_SECRET_KEY must be a 32-byte key given as base64 .* or as 64 hex/);
      expect(message).not.toContain(configured);
    }
  });

  it('creates <dataDir>/secret.key with mode 0600 once and reuses it', () => {
    const dataDir = path.join(tempDir(), 'nested');
    const first = loadOperatorKey({ dataDir });
    const file = path.join(dataDir, 'secret.key');
    expect(first).toHaveLength(32);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(loadOperatorKey({ dataDir }).equals(first)).toBe(true);
    expect(loadOperatorKey({ dataDir, configured: '' }).equals(first)).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual(['secret.key']);
  });

  it('validates the file it finds', () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, 'secret.key'), 'not a key\n');
    expect(() => loadOperatorKey({ dataDir })).toThrow(/secret\.key does not hold a 32-byte key/);
  });

  it('gives processes racing to create the file one and the same key', async () => {
    // The module is transpiled and loaded by separate Node processes, so the creates really race.
    const work = tempDir();
    const source = fs.readFileSync(path.resolve('src/core/monitors/secret-box.ts'), 'utf8');
    const { code } = await transform(source, { loader: 'ts', format: 'esm', platform: 'node' });
    const module = path.join(work, 'secret-box.mjs');
    fs.writeFileSync(module, code);
    const script = `import { loadOperatorKey } from ${JSON.stringify(module)};
      process.stdout.write(loadOperatorKey({ dataDir: process.argv[1] }).toString('hex'));`;
    const dataDir = path.join(work, 'data');
    const runs = Array.from({ length: 6 }, () =>
      run(process.execPath, ['--input-type=module', '-e', script, dataDir], { timeout: 15_000 }),
    );
    const keys = (await Promise.all(runs)).map((r) => r.stdout);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(loadOperatorKey({ dataDir }).toString('hex')).toBe(keys[0]);
    expect(fs.readdirSync(dataDir)).toEqual(['secret.key']);
  });
});

describe('the secret box during a key rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('opens what the previous key sealed, seals under the current key, and tells which key a value is under', () => {
    const old = createSecretBox(oldKey);
    const rotating = createSecretBox(newKey, oldKey);
    const sealedBefore = old.seal('whsec_before');
    expect(rotating.open(sealedBefore)).toBe('whsec_before');
    expect(rotating.isCurrent(sealedBefore)).toBe(false);
    const sealedNow = rotating.seal('whsec_now');
    expect(rotating.isCurrent(sealedNow)).toBe(true);
    expect(() => old.open(sealedNow)).toThrow(/sealed under another key/);
    expect(createSecretBox(newKey).open(sealedNow)).toBe('whsec_now');
    // a value sealed under neither fails with the current key's message, no secret in it
    const stranger = createSecretBox(randomBytes(32)).seal('whsec_other');
    expect(() => rotating.open(stranger)).toThrow(/sealed under another key/);
  });

  it('reads TRAWL_SECRET_KEY_PREVIOUS in the forms of TRAWL_SECRET_KEY, blank as none, and names it when wrong', () => {
    expect(parsePreviousKey(undefined)).toBeUndefined();
    expect(parsePreviousKey('  ')).toBeUndefined();
    expect(parsePreviousKey(oldKey.toString('base64'))?.equals(oldKey)).toBe(true);
    expect(parsePreviousKey(oldKey.toString('hex'))?.equals(oldKey)).toBe(true);
    expect(() => parsePreviousKey('not-a-key')).toThrow(/TRAWL_SECRET_KEY_PREVIOUS must be a 32-byte key/);
  });
});
