/**
 * The import's line reader splits a stream as `readline` does (`\n`, `\r\n`, a lone `\r`), whatever the
 * chunk boundaries, and hands a stream error back instead of throwing it.
 */
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { forEachLine, linesOf } from '../../../src/core/import/lines.js';

/** A stream of `text`'s UTF-8 bytes cut into chunks of `size` bytes (cuts fall inside characters). */
const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks, { objectMode: false });
};

const readAll = async (input: Readable) => {
  const out: string[] = [];
  for await (const lines of linesOf(input)) out.push(...lines);
  return out;
};

const byReadline = async (text: string) => {
  const out: string[] = [];
  for await (const l of readline.createInterface({ input: chunked(text, 7), crlfDelay: Infinity })) out.push(l);
  return out;
};

const SAMPLES = [
  '{"a":1}\n{"b":"é—ü"}\n',
  'one\r\ntwo\r\nthree',
  'lone\rcr\r\r\nmixed\n\nend\r',
  '\n\nblank lines first\n',
  '',
  'no line end at all ∑ 漢字',
  'x\r',
];

describe('linesOf', () => {
  it('gives the lines readline gives, for every chunk size', async () => {
    for (const text of SAMPLES) {
      const expected = await byReadline(text);
      for (const size of [1, 2, 3, 5, 64, 1 << 16]) {
        expect(await readAll(chunked(text, size)), `${JSON.stringify(text)} in chunks of ${size}`).toEqual(expected);
      }
    }
  });
});

describe('forEachLine', () => {
  it('numbers the lines from 1 and waits for a visit that returns a promise', async () => {
    const seen: string[] = [];
    const read = await forEachLine(chunked('a\nb\nc\n', 1), undefined, (text, line) => {
      seen.push(`${line}:${text}`);
      return line === 2 ? new Promise((resolve) => setImmediate(resolve)) : undefined;
    });
    expect(seen).toEqual(['1:a', '2:b', '3:c']);
    expect(read).toEqual({ lines: 3 });
  });

  it('returns the stream error with the lines read before it', async () => {
    const input = new Readable({ read() {} });
    input.push('first\nsecond\n');
    setImmediate(() => input.destroy(new Error('disk gone')));
    const read = await forEachLine(input, undefined, () => undefined);
    expect(read.lines).toBe(2);
    expect(read.error?.message).toBe('disk gone');
  });

  it('stops at an aborted signal and throws what a visit throws', async () => {
    const stop = new AbortController();
    const read = await forEachLine(chunked('a\nb\nc\n', 64), stop.signal, (_t, line) => {
      if (line === 2) stop.abort();
      return undefined;
    });
    expect(read).toEqual({ lines: 2 });
    await expect(
      forEachLine(chunked('a\n', 64), undefined, () => {
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
  });
});
