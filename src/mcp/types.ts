/**
 * The types the MCP door's modules share (the server, its tool table, the agent_run tool, logging and
 * tasks), in a module of their own so that none of them imports the server that mounts it.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Door } from '../compose/door.js';
import type { ServiceContext } from '../core/context.js';
import type { Logger } from '../lib/logger.js';
import type { OpRunner } from '../ops/invoke.js';
import type { AnswerPager } from './reply/pager.js';

/** The SDK's context of one request a server handles. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
