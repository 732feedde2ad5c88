/**
 * A background thread's CPU priority: the document writer's and the merge worker's threads call
 * `yieldToAnswers()` first, so that when every core is busy the thread that answers queries gets one
 * first and the background work (whose callers wait for it anyway, or nobody does) takes what is left.
 */
import os from 'node:os';

/** The nice value of a background thread, above the process's. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers this thread's priority to `BACKGROUND_NICE`. On Linux the nice value is the calling thread's
 * own (threads it starts inherit it); elsewhere (macOS) it is the whole process's, so it is left alone.
 * A container that does not permit it leaves the thread at the process's priority.
 */
export function yieldToAnswers(): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(BACKGROUND_NICE);
  } catch {
    // not permitted: the thread runs at the process's priority
  }
}
