import { PassThrough } from 'node:stream';
import {
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION } from '../../../src/mcp/handshake.js';
import { FRONT_PROTOCOL } from '../../../src/mcp/stdio.js';
import { lineChannel } from '../../../src/mcp/stdio-lines.js';

describe('the stdio front answers with the SDK’s names without loading the SDK', () => {
  it('writes the same _meta keys and 2025-era revisions as the SDK exports', () => {
    expect(FRONT_PROTOCOL.versionMetaKey).toBe(PROTOCOL_VERSION_META_KEY);
    expect(FRONT_PROTOCOL.serverInfoMetaKey).toBe(SERVER_INFO_META_KEY);
    expect(FRONT_PROTOCOL.legacyVersions).toEqual(
      SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < MODERN_PROTOCOL_VERSION),
    );
  });
});

/** A channel on in-memory streams, and what it received. */
function channelOn(maxLineBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const channel = lineChannel(input, output, maxLineBytes);
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closed = 0;
  channel.onmessage = (value) => messages.push(value);
  channel.onerror = (err) => errors.push(err.message);
  channel.onclose = () => closed++;
  channel.start();
  const written = () => output.read()?.toString('utf8') ?? '';
  return { input, channel, messages, errors, closed: () => closed, written };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('lineChannel: JSON lines on stdio', () => {
  it('parses lines split across chunks, with CRLF and blank lines, in order', async () => {
    const { input, messages, errors } = channelOn();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n{"jsonrpc":"2.0",');
    input.write('"id":2,"method":"tools/list"}\n{"a":');
    await tick();
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    input.write('1}\n');
    await tick();
    expect(messages).toHaveLength(3);
    expect(errors).toEqual([]);
  });

  it('reports a line that is not JSON without its content, and goes on', async () => {
    const { input, messages, errors } = channelOn();
    input.write('not json secret-ish\n{"ok":true}\n');
    await tick();
    expect(errors).toEqual(['stdio: a line of 19 bytes is not JSON']);
    expect(messages).toEqual([{ ok: true }]);
  });

  it('drops the connection when a line outgrows the bound', async () => {
    const { input, messages, errors, closed } = channelOn(16);
    input.write('{"a":"0123456789abcdef"');
    await tick();
    expect(errors).toEqual(['stdio: a line is longer than 16 bytes']);
    expect(closed()).toBe(1);
    input.write('}\n{"b":1}\n');
    await tick();
    expect(messages).toEqual([]);
  });

  it('writes each message as one line, and refuses to write once closed', async () => {
    const { channel, written, input, closed } = channelOn();
    await channel.send({ jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } });
    expect(written()).toBe('{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb"}}\n');
    input.end();
    await tick();
    expect(closed()).toBe(1);
    await expect(channel.send({})).rejects.toThrow('closed');
  });
});
