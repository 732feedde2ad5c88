/**
 * The MCP door's span of each tool call (OpenTelemetry's MCP conventions): `tools/call <tool>`, a
 * continuation of the client's trace when the request's `params._meta` carries `traceparent` (and
 * `tracestate`), else a child of the HTTP request's span (or a trace of its own over stdio).
 */
import type { Caller } from '../core/context.js';
import type { Tracing } from '../lib/tracing.js';
import type { DoorTool } from './types.js';

/** `tool` with each call in its span; a result with `isError` marks the span failed (`error.type` tool_error). */
function tracedTool(tracing: Tracing, caller: Caller | null, tool: DoorTool): DoorTool {
  const contentFree = caller?.zeroRetention === true;
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool.name,
    'gen_ai.operation.name': 'execute_tool',
    'trawl.door': 'mcp',
  };
  return {
    name: tool.name,
    call(args, extra) {
      if (contentFree) tracing.markContentFree(); // the HTTP request's trace too
      // the request's whole `_meta` (the door's Extra names only the progress token of it)
      const carrier = extra._meta as Record<string, unknown> | undefined;
      const options = { kind: 'server' as const, carrier, contentFree, attributes };
      return tracing.span(`tools/call ${tool.name}`, options, async (span) => {
        const result = await tool.call(args, extra);
        if (result.isError === true) span.fail('tool_error');
        return result;
      });
    },
  };
}

/** The door's tool table with each tool traced (the table itself when traces are off). */
export function tracedTools(
  tracing: Tracing,
  caller: Caller | null,
  table: Map<string, DoorTool>,
): Map<string, DoorTool> {
  if (!tracing.enabled) return table;
  return new Map([...table].map(([name, tool]) => [name, tracedTool(tracing, caller, tool)]));
}
