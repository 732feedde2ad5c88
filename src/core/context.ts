/**
 * What every service call receives besides its input: who is asking, for which request, a logger,
 * a cancellation signal, a clock and a progress callback. Transport-free by design.
 */
import type { Logger } from '../lib/logger.js';

/** The caller, as authenticated by a door; `null` for the local stdio MCP process. */
export interface Caller {
  keyId: string;
  keyName: string;
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ServiceContext {
  requestId: string;
  logger: Logger;
  signal: AbortSignal;
  caller: Caller | null;
  clock: Clock;
  /** Beta tokens the request opted into (`Svc-Beta` header, or the MCP door's configured set). */
  betas: ReadonlySet<string>;
  onProgress?: (p: Progress) => void;
}
