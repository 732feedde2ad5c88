/** The Hono environment of the HTTP door: its bindings and the per-request variables its routes share. */
import type { HttpBindings } from '@hono/node-server';
import type { Release } from '../core/accounts/in-flight.js';
import type { ErrorBody } from './errors.js';

/** Node's request and response when the door runs on @hono/node-server; per-request variables. */
export interface HttpEnv {
  Bindings: Partial<HttpBindings>;
  /**
   * `releaseRequest`: the caller's in-flight slot, given back when the answer is made (rate-limit.ts);
   * `zeroRetention`: the caller is a zero-retention team's, so the door's lines about it are content-free;
   * `bodyText`: the body once read (body.ts `readBodyText`), for a second reader of the same request;
   * `operation`: what the request is counted under in the metrics (request-metrics.ts), set by its route;
   * `drain`: aborted when the server begins to drain (drain.ts): long event streams end with a retry hint.
   */
  Variables: {
    requestId: string;
    errorBody: ErrorBody;
    releaseRequest?: Release;
    zeroRetention?: boolean;
    bodyText?: string;
    operation?: string;
    drain: AbortSignal;
  };
}
