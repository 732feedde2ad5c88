/** Monitors, their runs and webhook deliveries as the `/monitors` routes answer (src/schemas/monitors.schema.ts). */

export interface Monitor {
  id: string;
  name: string | null;
  status: 'active' | 'paused' | 'disabled';
  search: { query?: string; numResults?: number } & Record<string, unknown>;
  trigger: { type: 'interval'; period: string } | null;
  webhook: { url: string; events?: string[] };
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CreatedMonitor extends Monitor {
  webhookSecret: string;
}

export interface MonitorRun {
  id: string;
  monitorId: string;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
  output: {
    results: { url: string; title?: string | null; id: string }[];
    content: string | Record<string, unknown>;
  } | null;
  failReason: string | null;
  durationMs: number | null;
  createdAt: string;
  completedAt: string | null;
}

export interface Delivery {
  eventId: string;
  type: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: { at: string; status: number | null; error: string | null; durationMs: number }[];
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The path of a monitor (and what follows it). */
export function monitorPath(id: string, rest = ''): string {
  return `/monitors/${encodeURIComponent(id)}${rest}`;
}
