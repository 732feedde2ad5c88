/**
 * When a monitor runs: on slots `anchor + k × period` (k ≥ 1), where the anchor is the creation time
 * plus a jitter of up to 30 minutes that is fixed per monitor (a hash of its id), so that monitors
 * created together do not all run at the same second. Pure functions of their arguments.
 */
import { createHash } from 'node:crypto';

const HOUR_MS = 3_600_000;

/** Hours in a period of one number and one unit (`1h`, `12h`, `1d`), or undefined when malformed. */
export function parsePeriodHours(period: string): number | undefined {
  const match = /^(\d+)\s*(h|d)$/.exec(period.trim());
  return match ? Number(match[1]) * (match[2] === 'd' ? 24 : 1) : undefined;
}
/** The largest schedule jitter (the spec's "up to 30 minutes"). */
export const MAX_JITTER_MS = 30 * 60_000;

/** The period of a trigger (`"6h"`, `"1d"`) in ms; throws on a malformed period (schemas reject those first). */
export function periodMs(period: string): number {
  const hours = parsePeriodHours(period);
  if (hours === undefined) throw new Error(`malformed trigger period: ${period}`);
  return hours * HOUR_MS;
}

/** The monitor's own jitter: 0 ≤ jitter < 30 minutes, the same on every call and in every process. */
export function jitterMs(monitorId: string): number {
  const digest = createHash('sha256').update(monitorId).digest();
  return digest.readUInt32BE(0) % MAX_JITTER_MS;
}

/** The first slot `anchor + k × period` (k ≥ 1) strictly after `afterMs`. */
export function nextSlot(anchorMs: number, period: number, afterMs: number): number {
  const k = Math.max(1, Math.floor((afterMs - anchorMs) / period) + 1);
  return anchorMs + k * period;
}
