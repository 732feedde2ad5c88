/**
 * The shape of one advertised tool of `tools/list` (src/mcp/catalog.generated.ts holds them): plain JSON
 * Schema written for a model, no output schema.
 */

type Json = Record<string, unknown>;

/** One advertised tool. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, Json>; required?: string[] };
  annotations: {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
  /** Whether a `tools/call` may carry a `task` (MCP tasks, docs/mcp.md). */
  execution?: { taskSupport: 'optional' };
}
