/**
 * The types the MCP door's modules share (the server, its tool table, the agent_run tool, logging and
 * tasks), in a module of their own so that none of them imports the server that mounts it.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  LoggingLevel,
  ProgressToken,
} from '@modelcontextprotocol/server';
import type { Door } from '../compose/door.js';
import type { ServiceContext } from '../core/context.js';
import type { Logger } from '../lib/logger.js';
import type { OpRunner } from '../ops/invoke.js';
import type { AnswerPager } from './reply/pager.js';

/** The protocol era a server serves: `legacy` (2025-11-25, after `initialize`) or `modern` (2026-07-28). */
export type Era = 'legacy' | 'modern';

/** A notification to the client about the request being handled (progress, a log message). */
export interface RelatedNotification {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * The door's view of one request a server handles, the same for both eras (made from the SDK's
 * `ServerContext` in server.ts, or for work inside a task in tasks/extra.ts).
 */
export interface Extra {
  /** Aborts when the client cancels the request (or the task is cancelled). */
  signal: AbortSignal;
  /** The request's progress token, when the client asked for progress. */
  _meta?: { progressToken?: ProgressToken };
  /** The era of the request. */
  era: Era;
  /** The client's capabilities for this request (its `initialize`, or the request's own `_meta` in 2026-07-28). */
  clientCapabilities?: ClientCapabilities;
  /** The least severe log level the request asked for in its `_meta` (2026-07-28). */
  logLevel?: LoggingLevel;
  /** Sends a notification related to this request (on its own response stream). */
  sendNotification(notification: RelatedNotification): Promise<void>;
  /**
   * Asks the client's model (`sampling/createMessage`), where the client can be reached by a request
   * of the server: 2025-11-25 only (2026-07-28 has no server-sent requests).
   */
  requestSampling?: (
    params: CreateMessageRequest['params'],
    options: { signal?: AbortSignal; timeout?: number },
  ) => Promise<CreateMessageResult>;
}

/** One served tool. */
export interface DoorTool {
  name: string;
  call(args: Record<string, unknown>, extra: Extra): Promise<CallToolResult>;
}

/** What the tool handlers of one server share. */
export interface ToolDeps {
  /** The app as a door sees it (no store handles: src/compose/door.ts). */
  app: Door;
  /** The operations over the app's services (each op handed only the services it declares). */
  ops: OpRunner;
  /** The service context of one MCP request (caller, betas, logger, progress to the client's token). */
  contextFor: (extra: Extra, tool: string) => ServiceContext;
  /** A failure as a tool result (`TAG: message`, `isError: true`). */
  failure: (thrown: unknown, logger: Logger) => CallToolResult;
  pager: AnswerPager;
  /** The API key id, or `local` over stdio: owner of the call's snapshots. */
  owner: string;
  /** Zero retention: snapshots stay in memory. */
  memoryOnly: boolean;
}
