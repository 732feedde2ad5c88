/** Deadlines for a whole operation, distinct from the per-phase timeouts of the Agent. */
import { toFetchError, type PhaseTimeouts } from './errors.js';
import { FetchError } from './types.js';

/**
 * Runs `work` with a deadline: past `timeoutMs` it fails with `onTimeout()`; a caller abort fails
 * with `CRAWL_UNKNOWN_ERROR` ("cancelled"); other failures are mapped to tags for `host` (a phase
 * time-out names its limit from `timeouts`).
 */
export async function withDeadline<T>(
  timeoutMs: number,
  caller: AbortSignal | undefined,
  host: string,
  onTimeout: () => FetchError,
  work: (signal: AbortSignal) => Promise<T>,
  timeouts?: PhaseTimeouts,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(onTimeout());
  }, timeoutMs);
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } catch (err) {
    if (timedOut) throw onTimeout();
    if (caller?.aborted) throw new FetchError('CRAWL_UNKNOWN_ERROR', 'the fetch was cancelled', null, { cause: err });
    throw toFetchError(err, host, timeouts);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}
