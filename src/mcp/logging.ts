/**
 * MCP logging of one server. The least severe level the client wants comes, in 2025-11-25, from
 * `logging/setLevel` (for this server: a stdio connection, or one stateless HTTP POST) and, in
 * 2026-07-28, from each request's own `_meta` (`io.modelcontextprotocol/logLevel`, LOG_LEVEL_META_KEY).
 * The services' warnings (src/core/warnings.ts) become `notifications/message` on the tool call's own
 * stream (level `warning`, logger `trawl`, data `{code, message}`), each once per call. docs/mcp.md
 * "Logging".
 */
import type { LoggingLevel, Server } from '@modelcontextprotocol/server';
import type { Warning } from '../core/warnings.js';
import type { Extra } from './types.js';

/** The logger name of Trawl's notifications. */
export const LOGGER = 'trawl';

/** The levels, least severe first (RFC 5424, as MCP names them). */
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const SEVERITY = new Map(LEVELS.map((level, i) => [level, i]));

/** A server's logging: the warning callback of one tool call, honouring the level the client set. */
export interface McpLogging {
  /** The `onWarning` of a call made with `extra`: sends each distinct warning once, on that call's stream. */
  warner(extra: Extra): (w: Warning) => void;
}

/**
 * Installs `logging/setLevel` on `server` (which must declare the `logging` capability). No level set
 * (by `logging/setLevel`, or in the request's `_meta`): every warning is sent.
 */
export function installLogging(server: Server): McpLogging {
  let level: LoggingLevel | undefined;
  server.setRequestHandler('logging/setLevel', (request) => {
    level = request.params.level;
    return {};
  });
  const wanted = (l: LoggingLevel, asked: LoggingLevel | undefined) =>
    asked === undefined || SEVERITY.get(l)! >= (SEVERITY.get(asked) ?? 0);
  return {
    warner(extra) {
      const sent = new Set<string>();
      return (w) => {
        const key = `${w.code}\n${w.message}`;
        if (!wanted('warning', extra.logLevel ?? level) || sent.has(key)) return;
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
