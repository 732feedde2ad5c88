/**
 * What the MCP door answers to `initialize`: its name, instructions and capabilities, in a module that
 * loads nothing heavy, so that `trawl mcp` can answer the handshake before it loads the door
 * (src/mcp/stdio.ts). The door's McpServer takes its name and instructions from here; its capabilities
 * follow from what it declares and registers, and test/e2e/mcp-startup.test.ts holds them equal to
 * SERVER_CAPABILITIES (a capability added to the door must be added here too).
 */
import { VERSION } from '../version.js';
import { FENCE_NOTICE } from './reply/fence.js';

export const SERVER_INFO = { name: 'trawl', title: 'Trawl', version: VERSION };

export const INSTRUCTIONS =
  'Trawl searches the web and reads pages for coding work: `search` finds pages (with text), `get_contents` ' +
  'reads URLs you have, `get_code_context` gives code examples for an API. Answers fit a token budget ' +
  `(maxTokens); a cut answer gives a nextCursor to continue it. ${FENCE_NOTICE}`;

/** The 2026-07-28 revision (served besides the 2025-era ones the SDK negotiates by `initialize`). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * The capabilities the door's server declares to a 2025-11-25 client (tools, the tool reference
 * resources, logging, tasks).
 */
export const SERVER_CAPABILITIES = {
  logging: {},
  resources: { listChanged: true },
  tools: { listChanged: false },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** The same for a 2026-07-28 client (`server/discover`): tasks are the `io.modelcontextprotocol/tasks` extension. */
export const MODERN_CAPABILITIES = {
  logging: {},
  resources: { listChanged: true },
  tools: { listChanged: false },
  extensions: { 'io.modelcontextprotocol/tasks': {} },
};

/**
 * How long a 2026-07-28 client may keep a list result (`ttlMs`, `cacheScope`). The tool catalog is
 * static for a selection (`?tools=` is in the URL) and the same for every caller: public, five minutes.
 * The resources list names the caller's agent runs: private, not kept. The templates and
 * `server/discover` are static.
 */
export const CACHE_HINTS = {
  'tools/list': { ttlMs: 300_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 300_000, cacheScope: 'public' },
  'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
} as const;
