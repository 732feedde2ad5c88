/**
 * MCP logging of one server: `logging/setLevel` sets the least severe level the client wants, for this
 * server (a stdio connection, or one stateless HTTP POST); the services' warnings (src/core/warnings.ts)
 * become `notifications/message` on the tool call's own stream (level `warning`, logger `trawl`,
 * data `{code, message}`), each once per call. docs/mcp.md "Logging".
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LoggingLevelSchema, SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Warning } from '../core/warnings.js';
import type { Extra } from './types.js';

/** The logger name of Trawl's notifications. */
export const LOGGER = 'trawl';

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** A server's logging: the warning callback of one tool call, honouring the level the client set. */
export interface McpLogging {
  /** The `onWarning` of a call made with `extra`: sends each distinct warning once, on that call's stream. */
  warner(extra: Extra): (w: Warning) => void;
}

/**
 * Installs `logging/setLevel` on `server` (which must declare the `logging` capability). No level set:
 * every warning is sent.
 */
export function installLogging(server: Server): McpLogging {
  let level: LoggingLevel | undefined;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  const wanted = (l: LoggingLevel) => level === undefined || SEVERITY.get(l)! >= SEVERITY.get(level)!;
  return {
    warner(extra) {
      const sent = new Set<string>();
      return (w) => {
        const key = `${w.code}\n${w.message}`;
        if (!wanted('warning') || sent.has(key)) return;
        sent.add(key);
        void extra
          .sendNotification({
            method: 'notifications/message',
            params: { level: 'warning', logger: LOGGER, data: { code: w.code, message: w.message } },
          })
          .catch(() => undefined);
      };
    },
  };
}
