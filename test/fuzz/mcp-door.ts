/**
 * The MCP door under fuzz: each tool of `tools/list` as an endpoint whose body is its input schema, called
 * with the SDK's real client over streamable HTTP and judged by the same rules as the REST door.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'; // prettier-ignore
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { TAG_STATUS } from '../../src/http/status.js';
import type { Endpoint, FuzzCase } from './cases.js';
import { expandDeep } from './hostile.js';
import type { Schema } from './json-arbitrary.js';
import { MAX_CASE_MS, slowness, type Outcome } from './oracle.js';

/** The deepest value the client can serialize (JSON.stringify overflows near 5,000 levels). */
const CLIENT_MAX_DEPTH = 3_000;
/** JSON-RPC's "invalid params": the SDK's answer to arguments its input schema refuses. */
const INVALID_PARAMS = -32602;

/** A client connected to `<base>/mcp` with `key`. */
export async function connectHttpMcp(base: string, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { 'x-api-key': key } },
  });
  const client = new Client({ name: 'fuzz', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Every tool as an endpoint (`tool NAME`) with its input schema as the body schema. */
export async function toolEndpoints(client: Client): Promise<{ endpoint: Endpoint; schema: Schema }[]> {
  const { tools } = await client.listTools();
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

/** The rule a thrown error breaks: protocol-level refusals of bad arguments (4xx, invalid params) pass. */
function judgeThrown(err: unknown): string | undefined {
  if (err instanceof McpError && err.code === INVALID_PARAMS) return undefined;
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code >= 400 && err.code < 500) return undefined; // prettier-ignore
  return `threw ${(err as Error).name}: ${String((err as Error).message).slice(0, 300)}`;
}

/** Calls the case's tool with its arguments; the outcome as the REST oracle reports it. */
export async function sendToolCase(client: Client, c: FuzzCase): Promise<Outcome> {
  const args = expandDeep(c.body?.value, CLIENT_MAX_DEPTH) as Record<string, unknown>;
  const started = performance.now();
  let violation: string | undefined;
  let status = 200;
  let tag: string | undefined;
  try {
    const result = (await client.callTool({ name: c.endpoint.path, arguments: args }, undefined, { timeout: MAX_CASE_MS * 5 })) as ToolResult; // prettier-ignore
    violation = judgeResult(result);
    if (result.isError) {
      tag = /^([A-Z0-9_]+):/.exec((result.content as { text?: string }[])[0]?.text ?? '')?.[1];
      status = TAG_STATUS[tag as keyof typeof TAG_STATUS] ?? 500;
    }
  } catch (err) {
    violation = judgeThrown(err);
    status = err instanceof StreamableHTTPError && err.code ? err.code : 400;
    tag = err instanceof McpError ? `JSON-RPC ${err.code}` : err instanceof StreamableHTTPError ? `HTTP ${err.code}` : undefined; // prettier-ignore
  }
  const ms = performance.now() - started;
  violation ??= slowness(ms);
  return { status, ms, tag, violation };
}
