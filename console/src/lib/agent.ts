/** Agent runs and MCP tasks as `/agent/runs` and `/console/api/tasks` answer them. */

export interface AgentRun {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  createdAt: string;
  updatedAt?: string;
  request: { query?: string; effort?: string } & Record<string, unknown>;
  output?: { text?: string; structured?: unknown; grounding?: Record<string, unknown>[] } | null;
  costDollars?: { total?: number } & Record<string, unknown>;
  error?: { code: string; message: string } | null;
}

/** One event of a run, as the console's event stream sends it (`id:`, `event:`, `data:`). */
export interface RunEvent {
  id: string | null;
  event: string;
  data: Record<string, unknown>;
}

export interface McpTask {
  taskId: string;
  status: string;
  tool: string;
  statusMessage: string | null;
  createdAt: string;
  lastUpdatedAt: string;
  runId: string | null;
}

/** Whether a run may still change (and its events be followed live). */
export function isLive(run: Pick<AgentRun, 'status'>): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/** One line about an event, from the fields the engine writes (src/core/agent). */
export function describeEvent(e: RunEvent): string {
  const d = e.data;
  const text = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
  // an event with a URL shows it as a link beside this line: the line then leaves out its title
  if (typeof d.url === 'string') return text('description') ?? text('message') ?? '';
  return text('description') ?? text('message') ?? text('title') ?? text('query') ?? text('status') ?? '';
}
