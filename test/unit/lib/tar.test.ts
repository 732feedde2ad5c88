/** The backup's tar (src/lib/tar.ts): written, listed and read back; what the system's `tar` reads; damage refused. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTarWriter, extractTarEntry, listTar, tarHeader } from '../../../src/lib/tar.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-tar-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function archive(files: Record<string, Buffer>): Promise<string> {
  const file = path.join(dir, `a-${Object.keys(files).join('-')}.tar`);
  const out = await fs.promises.open(file, 'w');
  const tar = createTarWriter(out);
  for (const [name, data] of Object.entries(files)) {
    const src = path.join(dir, name);
    fs.writeFileSync(src, data);
    const h = await fs.promises.open(src, 'r');
    await tar.add(name, h, data.length);
    await h.close();
  }
  await tar.addBuffer('manifest.json', Buffer.from('{"ok":true}'));
  await tar.end();
  await out.close();
  return file;
}

describe('tar', () => {
  it('round-trips files of any length, and the system tar lists them', async () => {
    const files = { 'empty.bin': Buffer.alloc(0), 'odd.bin': Buffer.from('x'.repeat(513)), 'big.bin': Buffer.alloc(3 << 20, 7) }; // prettier-ignore
    const file = await archive(files);
    const input = await fs.promises.open(file, 'r');
    const entries = await listTar(input, (await input.stat()).size);
    expect(entries.map((e) => [e.name, e.size])).toEqual([['empty.bin', 0], ['odd.bin', 513], ['big.bin', 3 << 20], ['manifest.json', 11]]); // prettier-ignore
    for (const e of entries.slice(0, 3)) {
      const out = await fs.promises.open(path.join(dir, `out-${e.name}`), 'w');
      await extractTarEntry(input, e, out);
      await out.close();
      expect(fs.readFileSync(path.join(dir, `out-${e.name}`)).equals(files[e.name as keyof typeof files])).toBe(true);
    }
    await input.close();
    const listed = spawnSync('tar', ['-tf', file], { encoding: 'utf8' });
    if (listed.status === 0) expect(listed.stdout.trim().split('\n')).toEqual(['empty.bin', 'odd.bin', 'big.bin', 'manifest.json']); // prettier-ignore
  });

  it('refuses a damaged header, a truncated archive, and names that are not plain', async () => {
    const file = await archive({ 'one.bin': Buffer.from('hello') });
    const bytes = fs.readFileSync(file);
    const damaged = Buffer.from(bytes);
    damaged[10] = 0x41; // inside the first header's name
    const check = async (buf: Buffer) => {
      const f = path.join(dir, 'check.tar');
      fs.writeFileSync(f, buf);
      const h = await fs.promises.open(f, 'r');
      try {
        return await listTar(h, buf.length);
      } finally {
        await h.close();
      }
    };
    await expect(check(damaged)).rejects.toThrow(/header at byte 0 is damaged/);
    await expect(check(bytes.subarray(0, 512 + 256))).rejects.toThrow(/truncated/);
    await expect(check(bytes.subarray(0, bytes.length - 1024))).rejects.toThrow(/truncated \(no end marker\)/);
    expect(() => tarHeader('../etc/passwd', 1, 0)).toThrow(/not a plain file name/);
  });

  it('writes sizes past 8 GiB in base-256 and reads them back', async () => {
    const size = 9 * 2 ** 30;
    const f = path.join(dir, 'huge-header.tar');
    fs.writeFileSync(f, tarHeader('huge.bin', size, 0));
    const h = await fs.promises.open(f, 'r');
    try {
      // the listing reads headers only: an archive "length" past the entry lets it reach the (absent) end
      await expect(listTar(h, 512 + size + 1024)).rejects.toThrow(/truncated/);
      const header = tarHeader('huge.bin', size, 0);
      expect(header[124]).toBe(0x80);
      expect(Number(header.readBigUInt64BE(128))).toBe(size);
    } finally {
      await h.close();
    }
  });
});
