/**
 * `GET /metrics` on the main listener: this process's metrics in the Prometheus text format, for an
 * operator key (scope `admin`: the metrics are the installation's, like `GET /status`). A key without
 * it is 403 `INSUFFICIENT_SCOPE`, no key 401. Not mounted when the metrics have a listener of their own
 * (`TRAWL_METRICS_LISTEN`): then this path is 404, and the keyless listener is the one place to scrape.
 */
import type { Hono } from 'hono';
import { requireScope } from '../core/access/scopes.js';
import type { HttpDoor } from './door.js';
import { authenticate } from './auth.js';
import { enforceRate } from './rate-limit.js';
import type { HttpEnv } from './env.js';

export function mountMetrics(hono: Hono<HttpEnv>, app: HttpDoor): void {
  if (app.config.metricsListen) return;
  hono.get('/metrics', async (c) => {
    const caller = await authenticate(c.req.raw.headers, app);
    await enforceRate(c, app, caller);
    requireScope(caller.scopes, 'admin', caller.keyId);
    const scrape = await app.metrics.scrape();
    return c.body(scrape.text, 200, { 'content-type': scrape.contentType, 'cache-control': 'no-store' });
  });
}
