/**
 * MCP's stdio framing (one JSON message per line on stdin and stdout) without the SDK, for the front
 * of `trawl mcp` (stdio.ts): importing `@modelcontextprotocol/server` takes about 150 ms on this
 * machine, more than the rest of a client's opening, so the front answers the opening before the SDK
 * loads. It hands over values that are only known to be JSON: whatever reaches the door's server goes
 * through the SDK's own JSON-RPC parser first (stdio.ts), as the SDK's stdio transport would.
 */
import type { Readable, Writable } from 'node:stream';

/** The most bytes one line may take before the connection is dropped (the SDK's stdio default). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** JSON lines in and out: `onmessage` gets each parsed line; a line that is not JSON goes to `onerror`. */
export interface LineChannel {
  onmessage?: (value: unknown) => void;
  onerror?: (err: Error) => void;
  onclose?: () => void;
  start(): void;
  /** Writes one message as a line; resolves once written (after a `drain` when stdout is full). */
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
}

/** A channel on `input` and `output` (stdin and stdout unless given). */
export function lineChannel(
  input: Readable = process.stdin,
  output: Writable = process.stdout,
  maxLineBytes = MAX_LINE_BYTES,
): LineChannel {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let closed = false;

  const deliver = (line: Buffer) => {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      channel.onerror?.(new Error(`stdio: a line of ${line.length} bytes is not JSON`));
      return;
    }
    channel.onmessage?.(value);
  };

  const onData = (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      deliver(pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece);
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
      if (closed) return;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
    }
    if (pendingBytes > maxLineBytes) {
      channel.onerror?.(new Error(`stdio: a line is longer than ${maxLineBytes} bytes`));
      void channel.close();
    }
  };
  const onError = (err: Error) => channel.onerror?.(err);
  const onEnd = () => void channel.close();

  const channel: LineChannel = {
    start() {
      input.on('data', onData);
      input.on('error', onError);
      input.on('end', onEnd);
      input.on('close', onEnd);
      if (input.readableEnded || input.destroyed) setImmediate(onEnd);
    },
    send(message) {
      if (closed) return Promise.reject(new Error('stdio: the channel is closed'));
      return new Promise((resolve, reject) => {
        const line = `${JSON.stringify(message)}\n`;
        const done = (err?: Error | null) => (err ? reject(err) : resolve());
        if (output.write(line, (err) => err && done(err))) done();
        else output.once('drain', () => done());
      });
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      input.off('data', onData);
      input.off('error', onError);
      input.off('end', onEnd);
      input.off('close', onEnd);
      if (input.listenerCount('data') === 0) input.pause();
      pending = [];
      pendingBytes = 0;
      channel.onclose?.();
      return Promise.resolve();
    },
  };
  return channel;
}
