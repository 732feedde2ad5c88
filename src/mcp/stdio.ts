/**
 * `trawl mcp`: the MCP door over stdio, both protocol revisions. stdout carries only the protocol; logs
 * go to stderr.
 *
 * The opening is answered before the door is loaded: `initialize` (2025-11-25) and `server/discover`
 * (2026-07-28) from src/mcp/handshake.ts, `ping` (2025-11-25), and `tools/list` (either era's shape) from the
 * catalog, so a client connects as fast as to a bare SDK server. The door (the app with its database,
 * services and engines, and the SDK's `serveStdio`, which pins the connection to the era of its
 * opening) opens at the first other message, or once the client has been quiet for WARM_UP_MS after
 * the opening, whichever comes first. It is handed the client's opening again (its answer dropped),
 * then the messages that came meanwhile, in order.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Transport,
} from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { advertised } from './catalog.js';
import {
  CACHE_HINTS,
  INSTRUCTIONS,
  MODERN_CAPABILITIES,
  MODERN_PROTOCOL_VERSION,
  SERVER_CAPABILITIES,
  SERVER_INFO,
} from './handshake.js';

/** How long the client must be quiet after an opening message before the door opens unasked. */
export const WARM_UP_MS = 200;

/** The door behind the opening: it serves a connection on a transport, and closes once the client has gone. */
export interface StdioDoor {
  /** Serves the connection on `transport` (the SDK's `serveStdio` over the door's server factory). */
  serve(transport: Transport): { close(): Promise<void> };
  close(): Promise<void>;
}

export interface StdioOptions {
  /** The tools the door serves (catalog names), for `tools/list` before it opens. */
  tools: readonly string[];
  /** Opens the door (loads and builds everything a call needs). */
  openDoor(): Promise<StdioDoor>;
}

/** The id the replayed opening carries, so that its answer (already given) is dropped. */
const REPLAY_ID = 'trawl:replayed-opening';

/** The transport the door serves on: its messages go out on stdio; it resolves `started` once started. */
function doorTransport(stdio: StdioServerTransport, started: () => void): Transport {
  const transport: Transport = {
    start: () => {
      started();
      return Promise.resolve();
    },
    send: (message) =>
      'id' in message && message.id === REPLAY_ID && !('method' in message) ? Promise.resolve() : stdio.send(message),
    close: () => {
      transport.onclose?.();
      return Promise.resolve();
    },
  };
  return transport;
}

/** Whether a request is of the 2026-07-28 era (its `_meta` names its protocol version). */
const isModern = (message: JSONRPCRequest) =>
  typeof (message.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY] === 'string';

/** The 2026-07-28 fields of a cacheable result: its kind, cache hint, and the server's identity. */
const modernResult = (hint: { ttlMs: number; cacheScope: string }) => ({
  resultType: 'complete',
  ...hint,
  _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO },
});

/** The answers of the front: the opening messages, ping, and tools/list of either era. */
function frontAnswers(tools: readonly string[]) {
  let legacyList: { tools: unknown[] } | undefined;
  let modernList: Record<string, unknown> | undefined;
  return {
    initialize(asked: unknown) {
      const legacy = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < MODERN_PROTOCOL_VERSION);
      const protocolVersion = typeof asked === 'string' && legacy.includes(asked) ? asked : legacy[0]!;
      return {
        protocolVersion,
        capabilities: SERVER_CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: INSTRUCTIONS,
      };
    },
    discover: () => ({
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: MODERN_CAPABILITIES,
      instructions: INSTRUCTIONS,
      ...modernResult(CACHE_HINTS['server/discover']),
    }),
    toolsList(modern: boolean) {
      if (!modern) return (legacyList ??= { tools: tools.map(advertised) });
      modernList ??= {
        tools: tools.map(advertised).map(({ execution: _execution, ...tool }) => tool),
        ...modernResult(CACHE_HINTS['tools/list']),
      };
      return modernList;
    },
  };
}

/** Serves MCP on stdin/stdout until the client closes the stream; resolves when done, rejects if the door fails to open. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const stdio = new StdioServerTransport();
  const answers = frontAnswers(options.tools);
  let opening: JSONRPCRequest | undefined; // initialize, or server/discover
  let initialized: JSONRPCMessage | undefined;
  const queue: JSONRPCMessage[] = [];
  let inner: Transport | undefined; // set once the door is open: messages then go straight to it
  let door: Promise<{ opened: StdioDoor; served: { close(): Promise<void> } }> | undefined;
  let warmUp: NodeJS.Timeout | undefined;
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // a failure after the client has gone is reported by the close below

  const answer = (id: JSONRPCRequest['id'], result: Record<string, unknown>) =>
    void stdio.send({ jsonrpc: '2.0', id, result }).catch(fail);

  /** Answers what the opening needs without the door; false for anything else. */
  const front = (message: JSONRPCMessage): boolean => {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method !== 'notifications/initialized') return false;
      initialized = message;
      return true;
    }
    if (message.method === 'initialize' && !opening) {
      opening = message;
      answer(message.id, answers.initialize(message.params?.protocolVersion));
    } else if (message.method === 'server/discover' && isModern(message)) {
      opening ??= message;
      answer(message.id, answers.discover());
    } else if (message.method === 'ping' && !isModern(message)) {
      answer(message.id, {}); // 2025-11-25 only: 2026-07-28 has no ping
    } else if (message.method === 'tools/list' && !message.params?.cursor) {
      answer(message.id, answers.toolsList(isModern(message)));
    } else {
      return false;
    }
    return true;
  };

  const open = () =>
    (door ??= (async () => {
      clearTimeout(warmUp);
      const opened = await options.openDoor();
      let started!: () => void;
      const ready = new Promise<void>((resolve) => (started = resolve));
      const transport = doorTransport(stdio, started);
      const served = opened.serve(transport);
      await ready;
      if (opening) transport.onmessage?.({ ...opening, id: REPLAY_ID });
      if (initialized) transport.onmessage?.(initialized);
      inner = transport;
      for (const message of queue.splice(0)) transport.onmessage?.(message);
      return { opened, served };
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
  const { opened, served } = await door;
  await served.close();
  await opened.close();
}
