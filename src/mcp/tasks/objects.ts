/** MCP task objects made from stored rows, and the rules a new task gets: its owner, TTL and poll interval. */
import type { CallToolResult, Task } from '@modelcontextprotocol/server';
import { ownerKeyId } from '../../core/access/access.js';
import type { Caller } from '../../core/context.js';
import { textResult as oneText, type TaskEndStatus, type TaskRow } from '../../core/jobs/tasks.js';

export { INTERRUPTED } from '../../core/jobs/tasks.js';

/** The shortest TTL granted (a shorter ask gets this): a minute, so a result outlives a slow poll. */
export const MIN_TTL_MS = 60_000;
/** The poll interval suggested when the client gives none, and the bounds of one it gives. */
export const DEFAULT_POLL_MS = 500;
export const MIN_POLL_MS = 100;
export const MAX_POLL_MS = 30_000;
/** Tasks per tasks/list page. */
export const LIST_PAGE = 20;

/** The owner of a caller's tasks, by the core's rule: its API key id, or 'local' for the user's own stdio process. */
export function ownerOf(caller: Caller | null): string {
  return ownerKeyId(caller);
}

/** The operator's rules for new tasks: the TTL granted and how many may be open per owner. */
export interface TaskRules {
  /** `TRAWL_MCP_TASK_TTL_MS`: the TTL when none is asked. */
  defaultTtlMs: number;
  /** `TRAWL_MCP_TASK_MAX_TTL_MS`: the longest TTL granted. */
  maxTtlMs: number;
  /** `TRAWL_MCP_MAX_TASKS`: open tasks per owner. */
  maxOpen: number;
}

/** The task rules of the configured settings. */
export function taskRulesOf(config: { mcpTaskTtlMs: number; mcpTaskMaxTtlMs: number; mcpMaxTasks: number }): TaskRules {
  return { defaultTtlMs: config.mcpTaskTtlMs, maxTtlMs: config.mcpTaskMaxTtlMs, maxOpen: config.mcpMaxTasks };
}

/** The TTL a task gets for the one asked: the default when none, then held to MIN_TTL_MS..the rules' maximum. */
export function ttlFor(asked: number | null | undefined, rules: Pick<TaskRules, 'defaultTtlMs' | 'maxTtlMs'>): number {
  const wanted = typeof asked === 'number' && Number.isFinite(asked) ? Math.round(asked) : rules.defaultTtlMs;
  return Math.max(MIN_TTL_MS, Math.min(rules.maxTtlMs, wanted));
}

/** The poll interval a task suggests for the one asked (clamped; default DEFAULT_POLL_MS). */
export function pollFor(asked: unknown): number {
  if (typeof asked !== 'number' || !Number.isFinite(asked)) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Math.round(asked)));
}

/** The wire task of a row (`statusMessage` overridden while it is open, e.g. by its agent run's status). */
export function toTask(row: TaskRow, statusMessage = row.status_message): Task {
  return {
    taskId: row.id,
    status: row.status,
    ttl: row.ttl_ms,
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
    pollInterval: row.poll_interval_ms,
    ...(statusMessage ? { statusMessage } : {}),
  };
}

/** A tool result of one text. */
export function textResult(text: string, isError = false): CallToolResult {
  return oneText(text, isError);
}

/** How a tool result ends its task: `failed` for an error result (as the 2025-11-25 spec says), with its first line. */
export function endOf(result: CallToolResult): { status: TaskEndStatus; statusMessage: string | null } {
  if (!result.isError) return { status: 'completed', statusMessage: null };
  const first = result.content.find((c) => c.type === 'text');
  const line = first?.type === 'text' ? first.text.split('\n', 1)[0]! : 'the tool call failed';
  return { status: 'failed', statusMessage: line.length > 300 ? `${line.slice(0, 299)}…` : line };
}
