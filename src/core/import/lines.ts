/**
 * The lines of a UTF-8 byte stream, as `readline` splits them (`\n`, `\r\n` and a lone `\r` end a line)
 * but found in the bytes and decoded a line at a time: `readline` (and a decoder over whole chunks) turned
 * every chunk into one large string first, most of the line reading's cost; a line of ASCII decodes to a
 * one-byte string, half the memory. UTF-8 never uses the bytes of `\n` and `\r` inside a character.
 */
import type { Readable } from 'node:stream';

const LF = 10;
const CR = 13;

/**
 * Decodes the complete lines of `buf` into `lines`; returns where the unfinished last line starts. A `\r`
 * as the last byte is left unfinished: its `\n` may open the next chunk.
 */
function completeLines(buf: Buffer, lines: string[]): number {
  let from = 0;
  if (buf.indexOf(CR) < 0) {
    for (let nl = buf.indexOf(LF); nl >= 0; nl = buf.indexOf(LF, from)) {
      lines.push(buf.toString('utf8', from, nl));
      from = nl + 1;
    }
    return from;
  }
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (b !== LF && b !== CR) continue;
    if (b === CR && i === buf.length - 1) break;
    lines.push(buf.toString('utf8', from, i));
    if (b === CR && buf[i + 1] === LF) i++;
    from = i + 1;
  }
  return from;
}

/**
 * The lines of `input` (bytes, decoded as UTF-8), in order, a chunk's complete lines at a time (one await
 * per chunk, not per line); the last line even without a line end. A stream error is thrown by the
 * iteration.
 */
export async function* linesOf(input: Readable): AsyncGenerator<string[]> {
  // the bytes of the unfinished line, joined only when its end comes (a huge line costs one copy, not one per chunk)
  let pending: Buffer[] = [];
  for await (const chunk of input as AsyncIterable<Buffer>) {
    if (chunk.indexOf(LF) < 0 && chunk.indexOf(CR) < 0) {
      pending.push(chunk);
      continue;
    }
    const buf = pending.length > 0 ? Buffer.concat([...pending, chunk]) : chunk;
    const lines: string[] = [];
    const from = completeLines(buf, lines);
    pending = from < buf.length ? [buf.subarray(from)] : [];
    if (lines.length > 0) yield lines;
  }
  let rest = Buffer.concat(pending);
  if (rest[rest.length - 1] === CR) rest = rest.subarray(0, -1);
  if (rest.length > 0) yield [rest.toString('utf8')];
}

/** How far `forEachLine` read: the lines it gave, and the stream's error when one stopped it. */
export interface LinesRead {
  lines: number;
  error?: Error;
}

/**
 * Gives each line of `input` to `visit` with its 1-based number (waiting when `visit` returns a
 * promise), until the stream ends, fails (the error is returned, not thrown) or `signal` is aborted.
 * An error `visit` throws is thrown.
 */
export async function forEachLine(
  input: Readable,
  signal: AbortSignal | undefined,
  visit: (text: string, line: number) => Promise<void> | undefined,
): Promise<LinesRead> {
  const lines = linesOf(input);
  let line = 0;
  for (;;) {
    let chunk: IteratorResult<string[]>;
    try {
      chunk = await lines.next();
    } catch (err) {
      return { lines: line, error: err instanceof Error ? err : new Error(String(err)) };
    }
    if (chunk.done) return { lines: line };
    for (const text of chunk.value) {
      if (signal?.aborted) return { lines: line };
      const wait = visit(text, ++line);
      if (wait) await wait;
    }
  }
}
