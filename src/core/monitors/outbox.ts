/**
 * Delivers the webhook outbox, at least once: each due delivery is claimed with a lease (so two
 * processes never send it at the same time), sent by the guarded sender, and its attempt recorded.
 * A failed attempt is retried with exponential backoff and jitter (30 s doubling to at most 1 h, ×0.5
 * to ×1.5) until the delivery's retry window (24 h by default) has passed; then it is `failed`.
 * Deliveries are not ordered: receivers deduplicate and order by the event `id` and `createdAt`.
 * Dispatch is continuous and isolated per receiver host: a delivery is claimed the moment a slot frees
 * (at most `concurrency` in flight, and at most `hostConcurrency` to one `host:port`), so a slow or dead
 * receiver holds only its own host's slots and never the others' deliveries.
 */
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorsRepo } from '../../store/contracts/monitors.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import { deliveryLeaseMs, hostOf, retryDelayMs } from './delivery-policy.js';
import { createWakeup } from './wakeup.js';

/** Due deliveries read per query while looking for ones whose host has a free slot. */
const SCAN_PAGE = 200;
/** Due deliveries one scan notes as waiting for a slot (a bound on memory; the rest are found later). */
const MAX_WAITING = 10_000;

/** The webhook outbox's delivery loop. */
export interface Outbox {
  /**
   * Sends everything due now, claiming more as slots free, and resolves once no attempt is in flight and
   * nothing more can be claimed: the number of attempts made meanwhile (by this and concurrent dispatch).
   */
  flush(): Promise<number>;
  /** Asks for a dispatch soon (after a new event was written). */
  poke(): void;
  start(): void;
  /** Stops claiming; resolves once the attempts in flight are recorded. */
  stop(): Promise<void>;
}

/** What the outbox needs: the store, the sender, the secret box, the clock and its limits. */
export interface OutboxDeps {
  repo: MonitorsRepo;
  sender: WebhookSender;
  box: SecretBox;
  now: () => number;
  logger: Logger;
  /** Attempts in flight at once in this process, over all receivers. */
  concurrency: number;
  /** Attempts in flight at once in this process to one receiver host. */
  hostConcurrency: number;
  pollMs: number;
  /** The work lease (`TRAWL_LEASE_MS`): a shorter one shortens a delivery's margin (delivery-policy.ts). */
  leaseMs?: number;
}

/** A failed attempt's outcome when the secret cannot be opened: nothing can sign the event any more. */
const UNSIGNABLE = {
  ok: false,
  status: null,
  error: 'the secret cannot be opened with the operator key',
  durationMs: 0,
  redirects: [],
};

/** The outbox over `deps`; `start` sets its timers. */
export function createOutbox(deps: OutboxDeps): Outbox {
  const { repo } = deps;
  const leaseMs = deliveryLeaseMs(deps.sender.timeoutMs, deps.leaseMs);
  /** Attempts in flight per receiver host, and in all. */
  const busy = new Map<string, number>();
  let inFlight = 0;
  let attempted = 0;
  let stopped = false;
  /** Flushes under way: they keep refilling slots even after stop (a caller asked for this work). */
  let flushing = 0;
  /** Due deliveries the last scan found waiting for a slot of their host, oldest first. */
  let waiting = new Map<string, number[]>();
  /** Called when an attempt settles (flush and stop wait on it). */
  let waiters: (() => void)[] = [];

  const open = (row: DeliveryRow): string => {
    try {
      return deps.box.open(row.secret);
    } catch (err) {
      deps.logger.error({ err, eventId: row.event_id }, 'webhook secret cannot be opened with the operator key');
      return '';
    }
  };

  const attempt = async (row: DeliveryRow): Promise<void> => {
    const started = deps.now();
    const secret = open(row);
    const outcome = secret
      ? await deps.sender.send({
          url: row.url,
          body: row.body,
          secret,
          eventId: row.event_id,
          eventType: row.event_type,
        })
      : UNSIGNABLE;
    const at = deps.now();
    const attempts = row.attempts + 1;
    const retryAt = at + retryDelayMs(attempts);
    const status = outcome.ok ? 'delivered' : retryAt > row.give_up_ms || !secret ? 'failed' : 'pending';
    await repo.recordAttempt(
      {
        delivery_seq: row.seq,
        attempt: attempts,
        at: new Date(started).toISOString(),
        status: outcome.status,
        error: outcome.error,
        duration_ms: Math.round(outcome.durationMs),
      },
      {
        seq: row.seq,
        status,
        attempts,
        next_attempt_ms: status === 'pending' ? retryAt : null,
        last_error: outcome.ok ? null : outcome.error,
        delivered_at: outcome.ok ? new Date(at).toISOString() : null,
      },
    );
    const log = { eventId: row.event_id, type: row.event_type, monitorId: row.monitor_id, attempt: attempts };
    if (outcome.ok) deps.logger.debug({ ...log, status: outcome.status }, 'webhook delivered');
    else if (status === 'failed') deps.logger.warn({ ...log, error: outcome.error }, 'webhook delivery given up');
    else
      deps.logger.info(
        { ...log, error: outcome.error, retryInMs: retryAt - at },
        'webhook delivery failed; will retry',
      );
    if (status === 'pending') wakeup.at(retryAt);
  };

  /**
   * Claims run one at a time in this process (a scan or a refill, each awaiting the store), so the slot
   * counts they check are the ones they fill; attempts themselves run in parallel.
   */
  let lane: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = lane.then(work);
    lane = next.catch(() => undefined);
    return next;
  };

  /** Runs one claimed attempt in a slot of its host; when it settles, the freed slot is filled at once. */
  const launch = (row: DeliveryRow, host: string): void => {
    busy.set(host, (busy.get(host) ?? 0) + 1);
    inFlight++;
    attempted++;
    void attempt(row)
      .catch((err: unknown) => deps.logger.error({ err, eventId: row.event_id }, 'webhook attempt not recorded'))
      .finally(() => {
        const left = (busy.get(host) ?? 1) - 1;
        if (left > 0) busy.set(host, left);
        else busy.delete(host);
        inFlight--;
        if (!stopped || flushing > 0) void exclusive(() => refillOrWait(host));
        const settled = waiters;
        waiters = [];
        for (const wake of settled) wake();
      });
  };

  /** Fills a freed slot of `host`, and sets the next wake-up once nothing is in flight. */
  const refillOrWait = async (host: string): Promise<void> => {
    if (stopped && flushing === 0) return;
    try {
      await refill(host);
      if (inFlight === 0) await scheduleNext();
    } catch (err) {
      deps.logger.error({ err }, 'webhook outbox could not claim more deliveries');
    }
  };

  /** Claims `seq` and starts its attempt; false when another process has it or it is no longer due. */
  const tryStart = async (seq: number, host: string, now: number): Promise<boolean> => {
    const claimed = await repo.claimDelivery(seq, now, now + leaseMs);
    if (claimed) launch(claimed, host);
    return claimed !== undefined;
  };

  /**
   * Scans the due deliveries: claims those whose host has a free slot, and notes the others per host in
   * `waiting`, so a slot that frees is refilled from its host's list without scanning again.
   */
  const dispatch = async (): Promise<void> => {
    const now = deps.now();
    const queued = new Map<string, number[]>();
    let noted = 0;
    let after: { ms: number; seq: number } | undefined;
    for (;;) {
      const page = await repo.dueDeliveries(now, SCAN_PAGE, after);
      for (const row of page) {
        const host = hostOf(row.url);
        const free = inFlight < deps.concurrency && (busy.get(host) ?? 0) < deps.hostConcurrency;
        if (free && (await tryStart(row.seq, host, now))) continue;
        if (free || noted >= MAX_WAITING) continue;
        const queue = queued.get(host) ?? [];
        queue.push(row.seq);
        queued.set(host, queue);
        noted++;
      }
      const last = page.at(-1);
      if (!last || page.length < SCAN_PAGE || noted >= MAX_WAITING) break;
      after = { ms: last.next_attempt_ms ?? now, seq: last.seq };
    }
    waiting = queued;
  };

  /** A slot of `host` freed: its next waiting delivery starts, or a new scan once none is left. */
  const refill = async (host: string): Promise<void> => {
    const queue = waiting.get(host) ?? [];
    const now = deps.now();
    while (queue.length > 0) if (await tryStart(queue.shift()!, host, now)) return;
    await dispatch();
  };

  /** Wakes up for the next delivery to come due; those due now but unclaimed wait for a slot to free. */
  const scheduleNext = async (): Promise<void> => {
    const earliest = await repo.earliestDelivery();
    if (earliest !== undefined && earliest > deps.now()) wakeup.at(earliest);
  };

  const settledOnce = () => new Promise<void>((resolve) => waiters.push(resolve));

  /** Resolves once no attempt is in flight and the refills that settled attempts queued are done. */
  const idle = async (): Promise<void> => {
    for (;;) {
      while (inFlight > 0) await settledOnce();
      await lane;
      if (inFlight === 0) return;
    }
  };

  const flush = async (): Promise<number> => {
    const from = attempted;
    flushing++;
    try {
      await exclusive(dispatch);
      await idle();
    } finally {
      flushing--;
    }
    await exclusive(scheduleNext);
    return attempted - from;
  };

  // settled deliveries are pruned by the retention sweep (core/retention, TRAWL_RETAIN_DELIVERIES_DAYS)
  const wakeup = createWakeup(
    async () => {
      if (stopped) return;
      await exclusive(async () => {
        await dispatch();
        await scheduleNext();
      });
    },
    { pollMs: deps.pollMs, name: 'webhook outbox', logger: deps.logger, now: deps.now },
  );

  return {
    flush,
    poke: () => wakeup.now(),
    start: () => {
      stopped = false;
      wakeup.start();
    },
    async stop() {
      stopped = true;
      await wakeup.stop();
      await idle();
    },
  };
}
