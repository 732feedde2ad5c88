/**
 * The timer behind the scheduler and the webhook outbox: calls `work` at the earliest time asked for
 * (`at`), and at least every `pollMs` (to notice what another process on the same data directory
 * changed). croner keeps the timers: a one-off date job for the next wake-up (it handles delays longer
 * than setTimeout's 24.8 days) and an interval job for the poll. Calls never overlap: a wake-up that
 * arrives while `work` runs is served by one more call right after it.
 */
import { Cron } from 'croner';
import type { Logger } from '../../lib/logger.js';

export interface Wakeup {
  /** Wake up at `ms` (epoch ms), unless an earlier wake-up is already set. Past times wake at once. */
  at(ms: number): void;
  /** Wake up now. */
  now(): void;
  start(): void;
  /** Stops the timers; resolves once a call in progress has returned. */
  stop(): Promise<void>;
  /** When the next timed wake-up is set for, if one is. */
  readonly nextAt: number | undefined;
}

export function createWakeup(
  work: () => Promise<void>,
  options: { pollMs: number; name: string; logger: Logger; now: () => number },
): Wakeup {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let timer: Cron | undefined;
  let timerAt: number | undefined;
  let poll: Cron | undefined;

  const fire = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = work()
      .catch((err: unknown) => options.logger.error({ err, loop: options.name }, 'background loop failed'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          setImmediate(fire);
        }
      });
  };

  const clearTimer = () => {
    timer?.stop();
    timer = undefined;
    timerAt = undefined;
  };

  return {
    at(ms) {
      if (stopped) return;
      if (timerAt !== undefined && timerAt <= ms) return;
      clearTimer();
      if (ms <= options.now()) {
        setImmediate(fire);
        return;
      }
      timerAt = ms;
      timer = new Cron(new Date(ms), { maxRuns: 1, unref: true }, () => {
        timer = undefined;
        timerAt = undefined;
        fire();
      });
    },
    now() {
      if (!stopped) setImmediate(fire);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      const seconds = Math.max(1, Math.round(options.pollMs / 1000));
      poll = new Cron('* * * * * *', { interval: seconds, unref: true }, fire);
      setImmediate(fire);
    },
    async stop() {
      stopped = true;
      clearTimer();
      poll?.stop();
      poll = undefined;
      await running;
    },
    get nextAt() {
      return timerAt;
    },
  };
}
