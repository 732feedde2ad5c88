/** Change detection between two walks: stat data first, hashes only for files whose stat moved. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type FileState,
  detectChanges,
  hashFile,
  planChanges,
  settleChanges,
} from '../../../src/core/code/walk/changes.js';
import { type SourceFile, walkCodeTree } from '../../../src/core/code/walk/walk.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const file = (p: string, size: number, mtimeMs: number): SourceFile => ({
  path: p,
  absolute: `/x/${p}`,
  size,
  mtimeMs,
});
const names = (files: SourceFile[]) => files.map((f) => f.path).sort();

describe('planChanges and settleChanges', () => {
  const previous = new Map<string, FileState>([
    ['same.ts', { size: 3, mtimeMs: 100, hash: sha('abc') }],
    ['touched.ts', { size: 3, mtimeMs: 100, hash: sha('abc') }],
    ['edited.ts', { size: 3, mtimeMs: 100, hash: sha('abc') }],
    ['gone.ts', { size: 3, mtimeMs: 100, hash: sha('abc') }],
    ['vanished.ts', { size: 3, mtimeMs: 100, hash: sha('abc') }],
  ]);
  const current = [
    file('same.ts', 3, 100),
    file('touched.ts', 3, 200),
    file('edited.ts', 4, 200),
    file('new.ts', 1, 200),
    file('vanished.ts', 3, 300),
    file('new-unreadable.ts', 1, 200),
  ];

  it('settles equal size and mtime without hashing and marks the rest suspect', () => {
    const plan = planChanges(previous, current);
    expect(names(plan.unchanged)).toEqual(['same.ts']);
    expect(names(plan.added)).toEqual(['new-unreadable.ts', 'new.ts']);
    expect(names(plan.suspect)).toEqual(['edited.ts', 'touched.ts', 'vanished.ts']);
    expect(plan.removed).toEqual(['gone.ts']);
  });

  it('tells a touch from an edit by hash, treats unreadable files as absent and builds the next state', () => {
    const hashes = new Map([
      ['touched.ts', sha('abc')],
      ['edited.ts', sha('abcd')],
      ['new.ts', sha('n')],
    ]);
    const changes = settleChanges(previous, planChanges(previous, current), hashes);
    expect(names(changes.unchanged)).toEqual(['same.ts', 'touched.ts']);
    expect(names(changes.changed)).toEqual(['edited.ts']);
    expect(names(changes.added)).toEqual(['new.ts']);
    expect(changes.removed.sort()).toEqual(['gone.ts', 'vanished.ts']);
    expect([...changes.state.keys()].sort()).toEqual(['edited.ts', 'new.ts', 'same.ts', 'touched.ts']);
    expect(changes.state.get('touched.ts')).toEqual({ size: 3, mtimeMs: 200, hash: sha('abc') });
    expect(changes.state.get('edited.ts')!.hash).toBe(sha('abcd'));
  });
});

describe('detectChanges on disk', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-changes-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const write = (rel: string, text: string) => fs.writeFileSync(path.join(root, rel), text);
  const setTime = (rel: string, seconds: number) => fs.utimesSync(path.join(root, rel), seconds, seconds);

  it('hashes a file as sha256 of its bytes', async () => {
    write('h.md', 'hello');
    expect(await hashFile(path.join(root, 'h.md'))).toBe(sha('hello'));
  });

  it('reads only new and moved files between two walks', async () => {
    for (const [rel, text] of Object.entries({ 'a.ts': 'a', 'b.ts': 'b', 'c.ts': 'c', 'd.ts': 'd' })) {
      write(rel, text);
      setTime(rel, 1_000_000);
    }
    const hashed: string[] = [];
    const hash = (f: SourceFile) => {
      hashed.push(f.path);
      return hashFile(f.absolute);
    };
    const first = await detectChanges(new Map(), walkCodeTree(root), { hash });
    expect(names(first.added)).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'h.md']);

    setTime('b.ts', 2_000_000); // touched: same bytes, new mtime
    write('c.ts', 'C'); // edited: same size, new mtime
    setTime('c.ts', 2_000_000);
    fs.rmSync(path.join(root, 'd.ts'));
    write('e.ts', 'e');
    hashed.length = 0;
    const second = await detectChanges(first.state, walkCodeTree(root), { hash, concurrency: 2 });
    expect(hashed.sort()).toEqual(['b.ts', 'c.ts', 'e.ts']);
    expect(names(second.unchanged)).toEqual(['a.ts', 'b.ts', 'h.md']);
    expect(names(second.changed)).toEqual(['c.ts']);
    expect(names(second.added)).toEqual(['e.ts']);
    expect(second.removed).toEqual(['d.ts']);

    hashed.length = 0;
    const third = await detectChanges(second.state, walkCodeTree(root), { hash });
    expect(hashed).toEqual([]); // the touch was recorded: nothing to read now
    expect(third.unchanged).toHaveLength(5);
  });

  it('counts a file that cannot be read any more as removed', async () => {
    const previous = new Map([['x.ts', { size: 1, mtimeMs: 1, hash: sha('x') }]]);
    const ghost = { path: 'x.ts', absolute: path.join(root, 'missing.ts'), size: 2, mtimeMs: 2 };
    const changes = await detectChanges(previous, [ghost]);
    expect(changes.removed).toEqual(['x.ts']);
    expect(changes.state.size).toBe(0);
  });
});
