/**
 * The request context a tool handler sees inside a task. A task outlives the request that started it,
 * so nothing may reach the client through that request: the signal is the task's own, progress becomes
 * the task's status message, other notifications are dropped, and requests to the client (sampling)
 * are refused. The door asks `isTaskExtra` to leave the client's model out of the service context.
 */
import type { Extra } from '../types.js';

const TASK_EXTRAS = new WeakSet<Extra>();
const IDLE = new AbortController().signal;

/**
 * A handler context for work inside a task, made from the starting request's `extra` (or from nothing,
 * for work done when a task is read). `signal` aborts the work; `note` receives its progress messages.
 */
export function taskExtra(
  signal: AbortSignal = IDLE,
  note: (message: string) => void = () => undefined,
  extra?: Extra,
): Extra {
  // no requestSampling: a task cannot send requests to the client, it outlives the request
  const inner: Extra = {
    era: extra?.era ?? 'legacy',
    ...(extra?.clientCapabilities ? { clientCapabilities: extra.clientCapabilities } : {}),
    signal,
    _meta: { progressToken: 'task' },
    sendNotification: async (notification) => {
      const message = notification.params?.message;
      if (notification.method === 'notifications/progress' && typeof message === 'string' && message) note(message);
    },
  };
  TASK_EXTRAS.add(inner);
  return inner;
}

/** Whether `extra` is the context of work inside a task (no client model, no client notifications). */
export function isTaskExtra(extra: Extra): boolean {
  return TASK_EXTRAS.has(extra);
}
