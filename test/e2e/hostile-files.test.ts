/**
 * Issue 21, defect 10e: the data directory is 0700 and every file in it 0600 (trawl.sqlite and
 * cache.sqlite with their -wal/-shm files, secret.key, first-api-key), whatever the umask, and an older
 * data directory with world-readable files is brought back to those modes when opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { ensureFirstKey } from '../../src/cli/serve.command.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createCacheStore } from '../../src/store/sqlite/cache.js';
import { tempDir } from '../helpers/app.js';

const root = tempDir();
const umask = process.umask();
afterEach(() => void process.umask(umask));
afterAll(() => root.cleanup());

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** A real app on `dataDir` that has written to both databases, made its operator key and its first API key. */
async function useDataDir(dataDir: string): Promise<void> {
  const config = loadConfig({}, { dataDir, logLevel: 'silent', createFirstKey: true });
  const app = createApp(config, { logger: createLogger('silent') });
  const cache = createCacheStore(dataDir);
  try {
    await ensureFirstKey(app);
    await app.services.keys.create('another', {}, null);
    await cache.namespace('test', 1).set('k', { v: 1 });
    const files = fs.readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(['trawl.sqlite', 'trawl.sqlite-wal', 'cache.sqlite', 'secret.key', 'first-api-key'])); // prettier-ignore
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of files) expect([file, modeOf(path.join(dataDir, file))]).toEqual([file, 0o600]);
  } finally {
    await cache.close();
    await app.close();
  }
}

describe('data directory modes', () => {
  it('creates the directory 0700 and its files 0600 even under umask 000', async () => {
    process.umask(0o000);
    await useDataDir(path.join(root.dir, 'fresh', 'data'));
  });

  it('brings an existing world-readable directory and its files back to 0700 and 0600', async () => {
    const dataDir = path.join(root.dir, 'old');
    await useDataDir(dataDir);
    fs.chmodSync(dataDir, 0o755);
    for (const file of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, file), 0o644);
    process.umask(0o022);
    await useDataDir(dataDir);
  });
});
