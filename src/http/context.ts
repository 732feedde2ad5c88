/** The ServiceContext of an HTTP request: its id, a logger, its cancellation, the caller and beta tokens. */
import type { Context } from 'hono';
import type { HttpDoor } from './door.js';
import type { Caller, ServiceContext } from '../core/context.js';
import { withoutContent } from '../lib/logger.js';
import { BETA_HEADERS, parseBetas } from '../ops/betas.js';
import { FEDERATED_HEADER } from '../providers/search/upstream.js';
import { requestSignal } from './body.js';
import type { HttpEnv } from './env.js';

/** The ServiceContext of one HTTP request, for `caller` (null: keyless, x402). */
export function serviceContext(app: HttpDoor, c: Context<HttpEnv>, caller: Caller | null): ServiceContext {
  const requestId = c.get('requestId');
  // the door's own lines about this request (an unexpected error) follow the same rule
  if (caller?.zeroRetention) c.set('zeroRetention', true);
  return {
    requestId,
    // a zero-retention team's requests leave no content in the logs
    logger: (caller?.zeroRetention ? withoutContent(app.logger) : app.logger).child({ requestId }),
    signal: requestSignal(c),
    caller,
    clock: app.clock,
    betas: parseBetas(BETA_HEADERS.map((h) => c.req.header(h))),
    // another Trawl federating with this one: answer from the local index so queries cannot loop
    federated: c.req.header(FEDERATED_HEADER) === '1',
  };
}
