/**
 * What every service call receives besides its input: who is asking, for which request, a logger,
 * a cancellation signal, a clock and a progress callback. Transport-free by design.
 */
import type { Logger } from '../lib/logger.js';
import type { ChatModel } from '../providers/model/types.js';
import type { Warning } from './warnings.js';

/** The caller, as authenticated by a door; `null` for the local stdio MCP process. */
export interface Caller {
  keyId: string;
  keyName: string;
  teamId: string;
  /** What the key may call (docs/accounts.md); null: everything. */
  scopes: readonly string[] | null;
  /** The key's request rate; null: the operator's default. */
  qps: number | null;
  /** Operator flags of the key's team. */
  enterprise: boolean;
  zeroRetention: boolean;
}

/**
 * The tenant a caller's work is queued under where callers share slots (the admission queue, a host's
 * politeness queue): its team, so one team's flood cannot hold another's fetch past its deadline; the
 * local stdio user and the server's own work are tenants of their own.
 */
export function tenantOf(ctx: Pick<ServiceContext, 'caller'>): string {
  return ctx.caller ? `team:${ctx.caller.teamId}` : 'local';
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
  /** How a call without a key was paid for (`x402`); its usage is recorded under that name. */
  paidWith?: 'x402';
  /** The request came from another Trawl federating with this one: answer from the local index only. */
  federated?: boolean;
  /**
   * The calling client's own language model, when the door can reach one (MCP sampling): synthesis
   * uses it when the operator configured no model, or prefers the client's.
   */
  clientModel?: ChatModel;
  /**
   * Called with each warning a user should see (src/core/warnings.ts): an empty index, a failed provider,
   * a missing model, a refused fetch. Never changes the answer; the same warning may come more than once.
   */
  onWarning?: (w: Warning) => void;
}
