// Replicas following the PostgreSQL code log into their own SQLite code index: a folder indexed through
// one is found by code search on another; removals and edits propagate; a follower started again resumes
// from its saved place, missing and repeating nothing; results equal those of an index built directly;
// a running follower is woken by the writer's notification; the chunks it applies get the code model's vectors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodeFollower, type CodeFollower } from '../../../src/core/replica/code-follower.js';
import { chunkUrl, createCodeIndex, type CodeIndex } from '../../../src/core/code/index/code-index.js';
import { createCodeVectors } from '../../../src/core/code/index/code-vectors.js';
import { indexTree } from '../../../src/core/code/index/indexer.js';
import { createCodeModelLoader } from '../../../src/core/code/model/shipped-model.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createCodeFilesRepo } from '../../../src/store/sqlite/code-files.js';
import type { CodeFilesRepo } from '../../../src/store/contracts/code-files.js';
import type { CodeLog } from '../../../src/store/contracts/code-log.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { createPgCodeFilesRepo } from '../../../src/store/pg/code-files.js';
import { createPgCodeLog } from '../../../src/store/pg/code-log.js';
import { freshPgStore, pgReachable } from '../../helpers/postgres.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const tempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

/** A replica's local SQLite code files and code index (with the shipped model's vectors, as an app wires it), in a temp dir. */
function replica() {
  const db: Db = openDatabase(tempDir('trawl-code-replica-'));
  cleanups.push(() => void db.close());
  const logger = createLogger('silent');
  const loader = createCodeModelLoader({ setting: undefined, logger });
  const vectors = createCodeVectors({ db, loader, chunksOf: (ids) => code.hitsByIds(ids), logger });
  cleanups.push(() => vectors.stop());
  const code = createCodeIndex(db, { vectors });
  return { db, code, local: createCodeFilesRepo(db, code) };
}

/** Chunks with a vector of the shipped model, and chunks with more than one of it. */
const embedded = (r: ReturnType<typeof replica>) =>
  r.db.prepare("SELECT COUNT(*) AS chunks, COUNT(*) - COUNT(DISTINCT doc_id) AS repeated FROM code_vec_chunks WHERE model LIKE 'trawl-code-%'").get(); // prettier-ignore

const WORDS = 'retry backoff socket pool timeout parse token cache flush merge segment cursor'.split(' ');
const word = (n: number) => WORDS[n % WORDS.length]!;
/** A Python module of three functions whose names and docs mix the words by `n`. */
const moduleText = (n: number, extra = '') =>
  [0, 1, 2]
    .map((k) => {
      const name = `${word(n + k)}_${word(n * 2 + k * 5)}${extra}`;
      return `def ${name}(value):\n    """${word(n + k * 3)} the ${word(n * 7 + k)} ${word(k)}."""\n    return ${word(n + k)}(value) + ${n}\n`;
    })
    .join('\n');

let clockMs = Date.parse('2026-11-26T10:00:00Z');
const clock = { now: () => new Date((clockMs += 60_000)) };
const index = (files: CodeFilesRepo, root: string) => indexTree({ files, clock }, { root, name: 'proj' });

/**
 * Waits until `n` changes after `follower`'s place can be read: the log is held back while any
 * transaction in the database is open, another test file's included.
 */
async function readable(log: CodeLog, follower: CodeFollower, n: number) {
  for (const t = performance.now(); performance.now() - t < 5000;) {
    if ((await log.changesSince(follower.position(), n)).changes.length >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`fewer than ${n} changes readable after 5 s`);
}

/** Ranked hits of a fresh reader over a merged index, ties compared by location (ids differ). */
function ranked(r: ReturnType<typeof replica>, q: string) {
  r.code.index.repo.mergeAll();
  const reader: CodeIndex = createCodeIndex(r.db);
  return reader
    .search(q, { limit: 100 })
    .map((h) => `${h.score.toFixed(9)} ${chunkUrl(h)} ${h.symbol}`)
    .sort()
    .reverse();
}

describe.runIf(pgReachable)('code follower', () => {
  it('copies what one replica indexes into another’s code index, resumes from its place, and ranks as a direct build', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgCodeFilesRepo(store.pool);
    const log = createPgCodeLog(store.pool);
    cleanups.push(() => log.close());
    const root = tempDir('trawl-code-proj-');
    for (let n = 0; n < 12; n++) fs.writeFileSync(path.join(root, `mod_${n}.py`), moduleText(n));
    const b = replica();
    let follower = createCodeFollower(b.db, log, b.local, { batch: 5 });
    const sibling = createCodeFollower(b.db, log, b.local); // another process on the same data directory

    const first = await index(shared, root);
    expect(first).toMatchObject({ added: 12, chunks: 36 });
    await readable(log, follower, 13);
    expect(await follower.catchUp()).toBe(13); // 12 files and the source
    expect(b.code.count()).toBe(36);
    expect(embedded(b)).toEqual({ chunks: 36, repeated: 0 });
    expect(await sibling.catchUp()).toBe(0); // starts from the place the other saved
    expect(await b.local.files('proj')).toEqual(await shared.files('proj'));
    expect(await b.local.sources()).toEqual(await shared.sources());
    expect(b.code.search('retry backoff', { limit: 1 })).toHaveLength(1);

    // while the replica is stopped: a file removed, one edited, one added; a new follower resumes
    fs.rmSync(path.join(root, 'mod_3.py'));
    fs.writeFileSync(path.join(root, 'mod_5.py'), moduleText(5, '_zebra'));
    fs.writeFileSync(path.join(root, 'mod_12.py'), `def quokka_burrow(value):\n    return value\n`);
    expect(await index(shared, root)).toMatchObject({ added: 1, changed: 1, removed: 1 });
    follower = createCodeFollower(b.db, log, b.local, { batch: 5 });
    expect(follower.position()).not.toBeNull();
    await readable(log, follower, 4);
    expect(await follower.catchUp()).toBe(4); // the three files and the source, each once
    expect(await follower.catchUp()).toBe(0);
    expect(b.code.count()).toBe(34);
    expect(embedded(b)).toEqual({ chunks: 34, repeated: 0 }); // the removed file's and the old edit's vectors gone
    expect(await b.local.files('proj')).toEqual(await shared.files('proj'));
    expect(await b.local.sources()).toEqual(await shared.sources());
    const paths = (q: string) => b.code.search(q, { limit: 10 }).map((h) => h.path);
    expect(paths('quokka')).toEqual(['mod_12.py']);
    expect(new Set(paths('zebra'))).toEqual(new Set(['mod_5.py']));
    expect(b.code.hitsByIds([])).toEqual([]);
    expect(b.code.search('value', { limit: 100 }).filter((h) => h.path === 'mod_3.py')).toEqual([]);

    // the same folder indexed directly into a fresh SQLite index ranks the same
    const direct = replica();
    await index(direct.local, root);
    for (const q of ['retry backoff', 'socket pool timeout', 'flush the cursor', 'zebra merge']) {
      const expected = ranked(direct, q);
      expect(expected.length).toBeGreaterThan(3);
      expect(ranked(b, q)).toEqual(expected);
    }
  });

  it('deletes a removed file on a replica that never read its chunks, and applies a batch with its place or not at all', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgCodeFilesRepo(store.pool);
    const log = createPgCodeLog(store.pool);
    const root = tempDir('trawl-code-proj-');
    fs.writeFileSync(path.join(root, 'a.py'), moduleText(1));
    fs.writeFileSync(path.join(root, 'b.py'), moduleText(2));
    await index(shared, root);
    fs.rmSync(path.join(root, 'a.py'));
    await index(shared, root);
    const b = replica();
    const follower = createCodeFollower(b.db, log, b.local);
    await readable(log, follower, 3);
    expect(await follower.catchUp()).toBe(3); // b.py, the source, and a.py's removal
    expect(await b.local.files('proj')).toEqual(await shared.files('proj'));
    expect(b.code.count()).toBe(3);

    // a batch that fails to apply leaves neither its changes nor its place
    fs.writeFileSync(path.join(root, 'c.py'), moduleText(3));
    await index(shared, root);
    const at = follower.position();
    const failing = createCodeFollower(b.db, log, {
      ...b.local,
      putSourceNow: () => {
        throw new Error('disk full');
      },
    });
    await readable(log, failing, 2);
    await expect(failing.catchUp()).rejects.toThrow('disk full');
    expect(b.code.count()).toBe(3);
    const again = createCodeFollower(b.db, log, b.local);
    expect(again.position()).toEqual(at);
    expect(await again.catchUp()).toBe(2);
    expect(b.code.count()).toBe(6);
  });

  it('runs on, woken by the writer’s notification, not by its poll', async () => {
    const store = await freshPgStore();
    cleanups.push(store.drop);
    const shared = createPgCodeFilesRepo(store.pool);
    const log = createPgCodeLog(store.pool);
    cleanups.push(() => log.close());
    const b = replica();
    const follower = createCodeFollower(b.db, log, b.local);
    const stop = new AbortController();
    const errors: unknown[] = [];
    // a poll far longer than the goal: only the notification can make it in time
    const running = follower.run({ pollMs: 30_000, signal: stop.signal, onError: (err) => errors.push(err) });
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    for (const [n, name] of [
      [1, 'aardvark'],
      [2, 'bandicoot'],
    ] as const) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the follower waiting again
      const t = performance.now();
      const chunk = { source: 'imp', path: `${name}.py`, startLine: 1, endLine: 2, language: 'python', kind: 'function', symbol: name, doc: null, code: `def ${name}():\n    return ${n}` }; // prettier-ignore
      const state = { size: 0, mtimeMs: 0, hash: `h${n}` };
      await shared.storeFiles('imp', [{ path: `${name}.py`, hash: state.hash, chunks: [chunk], state }], clock.now().getTime()); // prettier-ignore
      while (b.code.search(name, { limit: 1 }).length === 0) {
        if (performance.now() - t > 5000) throw new Error(`${name} not searchable after 5 s: the notification went unheard`); // prettier-ignore
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    stop.abort();
    await running; // stops at once, not after the poll
    expect(errors).toEqual([]);
  });
});
