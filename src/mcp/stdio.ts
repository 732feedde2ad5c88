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
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, Transport } from '@modelcontextprotocol/server';
import { advertised } from './catalog.js';
import {
  CACHE_HINTS,
  INSTRUCTIONS,
  MODERN_CAPABILITIES,
  MODERN_PROTOCOL_VERSION,
  SERVER_CAPABILITIES,
  SERVER_INFO,
} from './handshake.js';
import { lineChannel, type LineChannel } from './stdio-lines.js';

/**
 * The SDK's names the front needs, written here so that it answers without loading the SDK
 * (stdio-lines.ts); test/unit/mcp/stdio-front.test.ts checks them against the SDK's exports.
 */
export const FRONT_PROTOCOL = {
  /** `_meta` key naming a 2026-07-28 request's revision (PROTOCOL_VERSION_META_KEY). */
  versionMetaKey: 'io.modelcontextprotocol/protocolVersion',
  /** `_meta` key of the server's identity on a 2026-07-28 result (SERVER_INFO_META_KEY). */
  serverInfoMetaKey: 'io.modelcontextprotocol/serverInfo',
  /** The 2025-era revisions `initialize` negotiates, newest first (SUPPORTED_PROTOCOL_VERSIONS before 2026-07-28). */
  legacyVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as readonly string[],
};

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
  /** Ends the session as the client closing it would (SIGTERM): the door closes, handing back its work. */
  stop?: AbortSignal;
}

/** The id the replayed opening carries, so that its answer (already given) is dropped. */
const REPLAY_ID = 'trawl:replayed-opening';

/**
 * The transport the door serves on: its messages go out on stdio; it resolves `started` once started.
 * What comes in reaches the door through `deliver`, as a JSON-RPC message the SDK's parser accepted.
 */
function doorTransport(stdio: LineChannel, started: () => void): Transport {
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
  typeof (message.params?._meta as Record<string, unknown> | undefined)?.[FRONT_PROTOCOL.versionMetaKey] === 'string';

/** Whether a parsed line looks like a JSON-RPC request or notification the front may answer. */
function isFrontMessage(value: unknown): value is JSONRPCRequest | JSONRPCNotification {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== '2.0' || typeof v.method !== 'string') return false;
  if ('id' in v && typeof v.id !== 'string' && typeof v.id !== 'number') return false;
  return v.params === undefined || (typeof v.params === 'object' && v.params !== null && !Array.isArray(v.params));
}

/** The 2026-07-28 fields of a cacheable result: its kind, cache hint, and the server's identity. */
const modernResult = (hint: { ttlMs: number; cacheScope: string }) => ({
  resultType: 'complete',
  ...hint,
  _meta: { [FRONT_PROTOCOL.serverInfoMetaKey]: SERVER_INFO },
});

/** The answers of the front: the opening messages, ping, and tools/list of either era. */
function frontAnswers(tools: readonly string[]) {
  let legacyList: { tools: unknown[] } | undefined;
  let modernList: Record<string, unknown> | undefined;
  return {
    initialize(asked: unknown) {
      const legacy = FRONT_PROTOCOL.legacyVersions;
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
  const stdio = lineChannel();
  const answers = frontAnswers(options.tools);
  let opening: JSONRPCRequest | undefined; // initialize, or server/discover
  let initialized: JSONRPCMessage | undefined;
  const queue: unknown[] = [];
  let inner: ((value: unknown) => void) | undefined; // set once the door is open: lines then go straight to it
  let doorErrors: ((err: Error) => void) | undefined;
  let door: Promise<{ opened: StdioDoor; served: { close(): Promise<void> } }> | undefined;
  let warmUp: NodeJS.Timeout | undefined;
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // a failure after the client has gone is reported by the close below

  const answer = (id: JSONRPCRequest['id'], result: Record<string, unknown>) =>
    void stdio.send({ jsonrpc: '2.0', id, result }).catch(fail);

  /** Answers what the opening needs without the door; false for anything else (the door's SDK judges it). */
  const front = (value: unknown): boolean => {
    if (!isFrontMessage(value)) return false;
    const message = value;
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
      const [opened, { parseJSONRPCMessage }] = await Promise.all([
        options.openDoor(),
        import('@modelcontextprotocol/server'),
      ]);
      let started!: () => void;
      const ready = new Promise<void>((resolve) => (started = resolve));
      const transport = doorTransport(stdio, started);
      const served = opened.serve(transport);
      await ready;
      // what reaches the door's server is a message the SDK's parser accepted, as its stdio transport does
      const deliver = (value: unknown) => {
        let message: JSONRPCMessage;
        try {
          message = parseJSONRPCMessage(value);
        } catch (err) {
          transport.onerror?.(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        transport.onmessage?.(message);
      };
      if (opening) deliver({ ...opening, id: REPLAY_ID });
      if (initialized) deliver(initialized);
      inner = deliver;
      doorErrors = (err) => transport.onerror?.(err);
      for (const value of queue.splice(0)) deliver(value);
      return { opened, served };
    })());

  stdio.onmessage = (value) => {
    if (inner) return inner(value);
    if (!door && front(value)) {
      clearTimeout(warmUp);
      warmUp = setTimeout(() => void open().catch(fail), WARM_UP_MS);
      return;
    }
    queue.push(value);
    void open().catch(fail);
  };
  // a line that is not JSON goes to the door's server, as the SDK's stdio transport reports it (before
  // the door opens there is no one to tell: the client gets no answer to it either way)
  stdio.onerror = (err) => doorErrors?.(err);

  const closed = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    options.stop?.addEventListener('abort', () => resolve(), { once: true });
  });
  stdio.start();
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
