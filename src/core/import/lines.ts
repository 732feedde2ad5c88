/**
 * The lines of a text stream, as `readline` splits them (`\n`, `\r\n` and a lone `\r` end a line) but
 * without its interface's events and per-line machinery: `readline` was a tenth of an import's main
 * thread. A JSONL import reads its file through this.
 */
import type { Readable } from 'node:stream';

/** Line ends where a chunk holds a `\r` (the common chunk has none and is split on `\n` alone). */
const LINE_END = /\r\n|\n|\r/g;

/**
 * Splits `text` into complete lines (each given to `line`); returns where the unfinished
 * last line starts. A `\r` at the very end is left unfinished: its `\n` may open the next chunk.
 */
function completeLines(text: string, line: (l: string) => void): number {
  let from = 0;
  if (!text.includes('\r')) {
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      line(text.slice(from, nl));
      from = nl + 1;
    }
    return from;
  }
  LINE_END.lastIndex = 0;
  for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
    if (m[0] === '\r' && m.index === text.length - 1) break;
    line(text.slice(from, m.index));
    from = LINE_END.lastIndex;
  }
  return from;
}

/**
 * The lines of `input` (decoded as UTF-8), in order, a chunk's complete lines at a time (one await per
 * chunk, not per line); the last line even without a line end. A stream error is thrown by the iteration.
 */
export async function* linesOf(input: Readable): AsyncGenerator<string[]> {
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    const text = rest + chunk;
    const lines: string[] = [];
    rest = text.slice(completeLines(text, (l) => lines.push(l)));
    if (lines.length > 0) yield lines;
  }
  if (rest.endsWith('\r')) rest = rest.slice(0, -1);
  if (rest !== '') yield [rest];
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
