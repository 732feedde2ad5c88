/**
 * Delivers the webhook outbox, at least once: each due delivery is claimed with a lease (so two
 * processes never send it at the same time), sent by the guarded sender, and its attempt recorded.
 * A failed attempt is retried with exponential backoff and jitter (30 s doubling to at most 1 h, ×0.5
 * to ×1.5) until the delivery's retry window (24 h by default) has passed; then it is `failed`.
 * Deliveries are not ordered: receivers deduplicate and order by the event `id` and `createdAt`.
 */
import type { Logger } from '../../lib/logger.js';
import type { DeliveryRow, MonitorsRepo } from '../../store/monitors.repo.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookSender } from '../../fetch/webhook-sender.js';
import { createWakeup } from './wakeup.js';

const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3_600_000;
/** Settled deliveries are kept this long, for `trawl monitors deliveries`. */
const KEEP_SETTLED_MS = 30 * 24 * 3_600_000;

/** The wait before retry number `attempt` (1 = after the first failure): exponential, capped, jittered. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempt - 1, 20));
  return Math.round(base * (0.5 + random()));
}

export interface Outbox {
  /** Sends everything due now (up to `concurrency` at a time); resolves when those attempts are recorded. */
  flush(): Promise<number>;
  /** Asks for a flush soon (after a new event was written). */
  poke(): void;
  start(): void;
  stop(): Promise<void>;
}

export interface OutboxDeps {
  repo: MonitorsRepo;
  sender: WebhookSender;
  box: SecretBox;
  now: () => number;
  logger: Logger;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Longest a claimed delivery stays with this process before another may take it. */
  leaseMs: number;
  pollMs: number;
}

export function createOutbox(deps: OutboxDeps): Outbox {
  const { repo } = deps;

  const attempt = async (row: DeliveryRow): Promise<void> => {
    const started = deps.now();
    let secret: string;
    try {
      secret = deps.box.open(row.secret);
    } catch (err) {
      // the operator key changed: nothing can sign this event any more
      deps.logger.error({ err, eventId: row.event_id }, 'webhook secret cannot be opened with the operator key');
      secret = '';
    }
    const outcome = secret
      ? await deps.sender.send({ url: row.url, body: row.body, secret, eventId: row.event_id, eventType: row.event_type }) // prettier-ignore
      : { ok: false, status: null, error: 'the secret cannot be opened with the operator key', durationMs: 0, redirects: [] }; // prettier-ignore
    const at = deps.now();
    const attempts = row.attempts + 1;
    const retryAt = at + retryDelayMs(attempts);
    const status = outcome.ok ? 'delivered' : retryAt > row.give_up_ms || !secret ? 'failed' : 'pending';
    repo.recordAttempt(
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
    else deps.logger.info({ ...log, error: outcome.error, retryInMs: retryAt - at }, 'webhook delivery failed; will retry'); // prettier-ignore
    if (status === 'pending') wakeup.at(retryAt);
  };

  const flush = async (): Promise<number> => {
    let sent = 0;
    for (;;) {
      const now = deps.now();
      const due = repo.dueDeliveries(now, deps.concurrency * 4);
      const mine = due.filter((row) => repo.claimDelivery(row.seq, now, now + deps.leaseMs));
      if (mine.length === 0) break;
      // a fixed number of attempts in flight; each worker takes the next claimed delivery
      let next = 0;
      const worker = async () => {
        while (next < mine.length) await attempt(mine[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(deps.concurrency, mine.length) }, worker));
      sent += mine.length;
    }
    const earliest = repo.earliestDelivery();
    if (earliest !== undefined) wakeup.at(earliest);
    return sent;
  };

  let lastPrune = 0;
  const wakeup = createWakeup(
    async () => {
      await flush();
      if (deps.now() - lastPrune > 3_600_000) {
        lastPrune = deps.now();
        repo.pruneDeliveries(new Date(lastPrune - KEEP_SETTLED_MS).toISOString());
      }
    },
    { pollMs: deps.pollMs, name: 'webhook outbox', logger: deps.logger, now: deps.now },
  );

  return {
    flush,
    poke: () => wakeup.now(),
    start: () => wakeup.start(),
    stop: () => wakeup.stop(),
  };
}
