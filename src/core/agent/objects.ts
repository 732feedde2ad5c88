/**
 * The objects of agent runs and their events, made from stored rows; a run's owner; and what a schema
 * names as sources.
 */
import type { AgentRunRow } from '../../store/contracts/agent-runs.js';
import type { Owner } from '../access/access.js';
import type { Caller } from '../context.js';
import type { AgentEvent, AgentRun } from './agent-runs.types.js';

/** The key a run of `caller` is stored under: its id, or '' for the local process. */
export const storedKeyOf = (caller: Caller | null): string => caller?.keyId ?? '';

/** A run's owner (src/core/access/access.ts): its team, and its key ('' stands for the local process). */
export const runOwner = (row: AgentRunRow): Owner => ({ teamId: row.team_id, keyId: row.key_id || null });

/** The agent run object (docs/agent.md). */
export const toRun = (row: AgentRunRow): AgentRun => ({
  id: row.id,
  object: 'agent_run',
  status: row.status,
  stopReason: row.stop_reason,
  createdAt: row.created_at,
  startedAt: row.started_at,
  completedAt: row.completed_at,
  updatedAt: row.updated_at,
  request: JSON.parse(row.request) as Record<string, unknown>,
  output: row.output ? (JSON.parse(row.output) as Record<string, unknown>) : null,
  costDollars: row.cost ? (JSON.parse(row.cost) as Record<string, unknown>) : { total: 0 },
  usage: row.usage
    ? (JSON.parse(row.usage) as { agentComputeUnits: number; [k: string]: unknown })
    : { agentComputeUnits: 0 },
  error: row.error ? (JSON.parse(row.error) as { code: string; message: string }) : null,
});

export const toEvent = (row: { seq: number; event: string; data: string; created_at: string }): AgentEvent => ({
  id: row.seq,
  event: row.event,
  data: JSON.parse(row.data) as Record<string, unknown>,
  createdAt: row.created_at,
});

/** Source names that properties of a schema give under `x-source` (or `source`), at any depth. */
export function schemaSources(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    for (const key of ['x-source', 'source']) if (typeof o[key] === 'string') out.push(o[key]);
    for (const value of Object.values(o)) if (typeof value === 'object') walk(value);
  };
  walk(schema);
  return out;
}
