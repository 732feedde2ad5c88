/**
 * The MCP door under fuzz: each tool of `tools/list` as an endpoint whose body is its input schema, called
 * with the SDK's real clients over streamable HTTP (the v1 client, 2025-11-25, and the v2 client,
 * 2026-07-28) and judged by the same rules as the REST door, the same for both eras.
 */
import { ProtocolError, SdkHttpError, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client'; // prettier-ignore
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'; // prettier-ignore
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { TAG_STATUS } from '../../src/http/status.js';
import { MODERN_PROTOCOL_VERSION } from '../../src/mcp/handshake.js';
import { modernClient } from '../helpers/mcp.js';
import type { Endpoint, FuzzCase } from './cases.js';
import { expandDeep } from './hostile.js';
import type { Schema } from './json-arbitrary.js';
import { leakProblem, MAX_CASE_MS, slowness, type Outcome } from './oracle.js';

/** The deepest value the client can serialize (JSON.stringify overflows near 5,000 levels). */
const CLIENT_MAX_DEPTH = 3_000;
/** JSON-RPC's "invalid params": the SDK's answer to arguments its input schema refuses. */
const INVALID_PARAMS = -32602;

/** The protocol revision a client speaks: 2025-11-25 (`initialize`, v1 client) or 2026-07-28 (v2 client). */
export type Era = 'legacy' | 'modern';

/** A connected client of either era, as the fuzz drives it: list the tools, call one. */
export interface ToolClient {
  era: Era;
  listTools(): Promise<{ name: string; inputSchema: unknown }[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** A v1 client (2025-11-25) connected to `<base>/mcp` with `key` (the SDK's own `Client`). */
export async function connectHttpMcp(base: string, key: string): Promise<Client> {
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } })); // prettier-ignore
  return client;
}

const CALL_TIMEOUT_MS = MAX_CASE_MS * 5;

/** A v1 client as the fuzz drives it. */
function legacyTools(client: Client): ToolClient {
  return {
    era: 'legacy',
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as ToolResult, // prettier-ignore
    close: () => client.close(),
  };
}

/**
 * A client of `era` connected to `<base>/mcp` with `key`: the v1 client, or the v2 client pinned to
 * 2026-07-28. The v2 client declares no Tasks extension, as the v1 client asks for no task: every call
 * answers in its own request in both eras.
 */
export async function connectEraMcp(base: string, key: string, era: Era): Promise<ToolClient> {
  if (era === 'legacy') return legacyTools(await connectHttpMcp(base, key));
  const client = modernClient(false);
  await client.connect(new ModernHttp(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  const version = client.getNegotiatedProtocolVersion();
  if (version !== MODERN_PROTOCOL_VERSION) throw new Error(`the v2 client negotiated ${version}, not ${MODERN_PROTOCOL_VERSION}`); // prettier-ignore
  return {
    era,
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS })) as ToolResult, // prettier-ignore
    close: () => client.close(),
  };
}

/** Either client as the fuzz drives it (a v1 `Client` as `connectHttpMcp` gives it, for bench/fuzz.mjs). */
const toolsOf = (client: Client | ToolClient): ToolClient => (client instanceof Client ? legacyTools(client) : client);

/** Every tool as an endpoint (`tool NAME`) with its input schema as the body schema. */
export async function toolEndpoints(client: Client | ToolClient): Promise<{ endpoint: Endpoint; schema: Schema }[]> {
  const tools = await toolsOf(client).listTools();
  return tools.map((tool) => {
    const schema = tool.inputSchema as Schema;
    const endpoint: Endpoint = { name: `tool ${tool.name}`, method: 'CALL', path: tool.name, pathParams: [], query: [], body: schema, simpleErrors: false }; // prettier-ignore
    return { endpoint, schema };
  });
}

type ToolResult = { isError?: unknown; content?: unknown };

/** The rule a tool result breaks, or undefined: an error result must carry a known tag of a 4xx. */
function judgeResult(result: ToolResult): string | undefined {
  if (!result.isError) return undefined;
  const text = ((result.content ?? []) as { text?: string }[]).map((p) => p.text ?? '').join('\n');
  const tag = /^([A-Z0-9_]+):/.exec(text)?.[1];
  if (!tag || !(tag in TAG_STATUS)) return `error result without a known tag: ${text.slice(0, 300)}`;
  if (TAG_STATUS[tag as keyof typeof TAG_STATUS] >= 500) return `error result ${text.slice(0, 300)}`;
  return undefined;
}

/** The HTTP status of a transport error of either client (a 4xx the door answered), or undefined. */
function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof StreamableHTTPError) return err.code;
  if (err instanceof SdkHttpError) return err.status;
  return undefined;
}

/** The JSON-RPC error code of a refusal of either client, or undefined. */
function rpcCodeOf(err: unknown): number | undefined {
  if (err instanceof McpError || err instanceof ProtocolError) return err.code;
  return undefined;
}

/** The rule a thrown error breaks: protocol-level refusals of bad arguments (4xx, invalid params) pass. */
function judgeThrown(err: unknown): string | undefined {
  if (rpcCodeOf(err) === INVALID_PARAMS) return undefined;
  const status = httpStatusOf(err);
  if (status !== undefined && status >= 400 && status < 500) return undefined;
  return `threw ${(err as Error).name}: ${String((err as Error).message).slice(0, 300)}`;
}

/**
 * Calls the case's tool with its arguments; the outcome as the REST oracle reports it. What the answer
 * shows (its text, or the refusal's message) must not hold any of `secrets`, a stack trace or a source path.
 */
export async function sendToolCase(
  client: Client | ToolClient,
  c: FuzzCase,
  secrets: readonly string[] = [],
): Promise<Outcome> {
  const args = expandDeep(c.body?.value, CLIENT_MAX_DEPTH) as Record<string, unknown>;
  const started = performance.now();
  let violation: string | undefined;
  let status = 200;
  let tag: string | undefined;
  let shown = '';
  try {
    const result = await toolsOf(client).callTool(c.endpoint.path, args);
    violation = judgeResult(result);
    shown = JSON.stringify(result);
    if (result.isError) {
      tag = /^([A-Z0-9_]+):/.exec((result.content as { text?: string }[])[0]?.text ?? '')?.[1];
      status = TAG_STATUS[tag as keyof typeof TAG_STATUS] ?? 500;
    }
  } catch (err) {
    violation = judgeThrown(err);
    shown = `${(err as Error).message} ${JSON.stringify((err as { data?: unknown }).data ?? null)}`;
    const http = httpStatusOf(err);
    const rpc = rpcCodeOf(err);
    status = http ?? 400;
    tag = rpc !== undefined ? `JSON-RPC ${rpc}` : http !== undefined ? `HTTP ${http}` : undefined;
  }
  const ms = performance.now() - started;
  violation ??= leakProblem(shown, secrets) ?? slowness(ms);
  return { status, ms, tag, violation };
}
