/**
 * `holderGone` (src/core/jobs/lease-engine.ts): a lease's holder is gone when it is a process of this
 * host that no longer runs (a killed `trawl crawl`); this process, a live one and another host's are not.
 */
import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { holderGone, newOwner } from '../../../src/core/jobs/lease-engine.js';

describe('holderGone', () => {
  it('says a process of this host that exited is gone', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']);
    expect(holderGone(`${hostname()}:${exited.pid}:abcd1234`)).toBe(true);
  });

  it('takes this process, a live process and another host’s process to be alive', async () => {
    expect(holderGone(newOwner())).toBe(false);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    try {
      expect(holderGone(`${hostname()}:${child.pid}:abcd1234`)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
    expect(holderGone(`elsewhere.example:${process.pid + 1}:abcd1234`)).toBe(false);
    expect(holderGone('not an owner id')).toBe(false);
  });
});
