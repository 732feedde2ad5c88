/**
 * `trawl mcp`: the MCP door over stdio. stdout carries only the protocol; logs go to stderr.
 *
 * The handshake is answered before the door is loaded: `initialize` from src/mcp/handshake.ts, `ping`,
 * and `tools/list` from the catalog, so a client connects as fast as to a bare SDK server. The door (the
 * app with its database, services and engines, and the McpServer) opens at the first other message, or
 * once the client has been quiet for WARM_UP_MS after the handshake, whichever comes first. It is handed
 * the client's `initialize` again (its answer dropped), then the messages that came meanwhile, in order.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { advertised } from './catalog.js';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from './handshake.js';

/** How long the client must be quiet after a handshake message before the door opens unasked. */
export const WARM_UP_MS = 200;

/** The door behind the handshake: its server, and what to close once the client has gone. */
export interface StdioDoor {
  server: Pick<McpServer, 'connect' | 'close'>;
  close(): Promise<void>;
}

export interface StdioOptions {
  /** The tools the door serves (catalog names), for `tools/list` before it opens. */
  tools: readonly string[];
  /** Opens the door (loads and builds everything a call needs). */
  openDoor(): Promise<StdioDoor>;
}

/** The id the replayed `initialize` carries, so that its answer (already given) is dropped. */
const REPLAY_ID = 'trawl:replayed-initialize';

/** The transport the door's server is connected to: its messages go out on stdio. */
function doorTransport(stdio: StdioServerTransport): Transport {
  const transport: Transport = {
    start: () => Promise.resolve(),
    send: (message) =>
      'id' in message && message.id === REPLAY_ID && !('method' in message) ? Promise.resolve() : stdio.send(message),
    close: () => {
      transport.onclose?.();
      return Promise.resolve();
    },
  };
  return transport;
}

/** Serves MCP on stdin/stdout until the client closes the stream; resolves when done, rejects if the door fails to open. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const stdio = new StdioServerTransport();
  let list: { tools: unknown[] } | undefined;
  let initialize: JSONRPCRequest | undefined;
  let initialized: JSONRPCMessage | undefined;
  const queue: JSONRPCMessage[] = [];
  let inner: Transport | undefined; // set once the door is open: messages then go straight to it
  let door: Promise<StdioDoor> | undefined;
  let warmUp: NodeJS.Timeout | undefined;
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // a failure after the client has gone is reported by the close below

  const answer = (id: JSONRPCRequest['id'], result: Record<string, unknown>) =>
    void stdio.send({ jsonrpc: '2.0', id, result }).catch(fail);

  /** Answers what the handshake needs without the door; false for anything else. */
  const front = (message: JSONRPCMessage): boolean => {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method !== 'notifications/initialized') return false;
      initialized = message;
      return true;
    }
    if (message.method === 'initialize') {
      initialize = message;
      const asked = message.params?.protocolVersion as string;
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
      answer(message.id, {
        protocolVersion,
        capabilities: SERVER_CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: INSTRUCTIONS,
      });
    } else if (message.method === 'ping') {
      answer(message.id, {});
    } else if (message.method === 'tools/list') {
      list ??= { tools: options.tools.map(advertised) };
      answer(message.id, list);
    } else {
      return false;
    }
    return true;
  };

  const open = (): Promise<StdioDoor> =>
    (door ??= (async () => {
      clearTimeout(warmUp);
      const opened = await options.openDoor();
      const transport = doorTransport(stdio);
      await opened.server.connect(transport);
      if (initialize) transport.onmessage?.({ ...initialize, id: REPLAY_ID });
      if (initialized) transport.onmessage?.(initialized);
      inner = transport;
      for (const message of queue.splice(0)) transport.onmessage?.(message);
      return opened;
    })());

  stdio.onmessage = (message) => {
    if (inner) return inner.onmessage?.(message);
    if (!door && front(message)) {
      clearTimeout(warmUp);
      warmUp = setTimeout(() => void open().catch(fail), WARM_UP_MS);
      return;
    }
    queue.push(message);
    void open().catch(fail);
  };
  stdio.onerror = (err) => inner?.onerror?.(err);

  const closed = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await stdio.start();
  try {
    await Promise.race([closed, failed]);
  } finally {
    clearTimeout(warmUp);
  }
  await stdio.close();
  if (!door) return;
  const opened = await door;
  await opened.server.close();
  await opened.close();
}
