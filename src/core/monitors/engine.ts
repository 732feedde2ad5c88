/**
 * The background half of monitors: the scheduler starts due runs, the runner executes them under
 * leases, the outbox delivers their webhook events. Built once per service; `start` sets the timers.
 */
import { hostname } from 'node:os';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import type { Logger } from '../../lib/logger.js';
import type { MonitorsRepo } from '../../store/contracts/monitors.js';
import type { MonitorEvents } from './events.js';
import { newId } from './objects.js';
import { DELIVERY_CONCURRENCY } from './delivery-policy.js';
import { createOutbox } from './outbox.js';
import { createRunner, type ExecuteRun, type Runner } from './runner.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import type { SecretBox } from './secret-box.js';

/** Scheduled runs, run execution and webhook delivery, as the service and the commands drive them. */
export interface MonitorEngine {
  start(): void;
  stop(): Promise<void>;
  /** Starts the runs due now (tests and benchmarks drive time through the clock). */
  tick(): Promise<number>;
  /** Resolves when this process's queued and running runs have ended. */
  drain(): Promise<void>;
  /** Attempts every webhook delivery due now. */
  flush(): Promise<number>;
  /** Fails runs abandoned by a stopped process (the engine does this on start and every tick). */
  recover(): Promise<void>;
  readonly load: Runner['load'];
}

/** The engine's settings (a part of the monitors settings). */
export interface EngineSettings {
  runConcurrency: number;
  /** Webhook attempts in flight at once in this process to one receiver host (DELIVERY_CONCURRENCY over all). */
  deliveryConcurrency: number;
  pollMs: number;
  leaseMs: number;
}

/** What the engine is built on. */
export interface EngineDeps {
  repo: MonitorsRepo;
  events: MonitorEvents;
  box: SecretBox;
  sender: WebhookSender;
  execute: ExecuteRun;
  now: () => number;
  logger: Logger;
  settings: EngineSettings;
}

/** The engine and the parts the service acts through: runs to enqueue and cancel, wake-ups, new events. */
export interface EngineParts {
  engine: MonitorEngine;
  runner: Runner;
  scheduler: Scheduler;
  /** Called after a transaction wrote events, so the outbox sends them. */
  onEvents: () => void;
}

/** Builds the scheduler, the runner and the outbox over one store. */
export function createEngine(deps: EngineDeps): EngineParts {
  const { repo, now, logger, settings } = deps;
  const owner = `${hostname()}:${process.pid}:${newId('run').slice(4, 12)}`;
  const outbox = createOutbox({
    repo,
    sender: deps.sender,
    box: deps.box,
    now,
    logger,
    concurrency: DELIVERY_CONCURRENCY,
    hostConcurrency: settings.deliveryConcurrency,
    pollMs: settings.pollMs,
    leaseMs: settings.leaseMs,
  });
  const onEvents = () => outbox.poke();
  const runner = createRunner({
    repo,
    events: deps.events,
    execute: deps.execute,
    now,
    logger,
    concurrency: settings.runConcurrency,
    owner,
    leaseMs: settings.leaseMs,
    onEvents,
  });
  const scheduler = createScheduler({ repo, runner, now, logger, pollMs: settings.pollMs, onEvents });
  const engine: MonitorEngine = {
    start() {
      // the scheduler's first tick recovers too; this one only reports what it could not finish
      runner.recover().catch((err: unknown) => logger.error({ err }, 'monitor runs not recovered'));
      scheduler.start();
      outbox.start();
    },
    async stop() {
      await scheduler.stop();
      await runner.stop();
      await outbox.stop();
    },
    tick: () => scheduler.tick(),
    drain: () => runner.drain(),
    flush: () => outbox.flush(),
    recover: () => runner.recover(),
    get load() {
      return runner.load;
    },
  };
  return { engine, runner, scheduler, onEvents };
}
