/**
 * What the REST door and the Responses door are built on: a door (src/compose/door.ts) without the MCP
 * door's parts (its tasks and answer snapshots): the operations, keys to authenticate, accounts for rates
 * and prices, agent runs for the Responses door's streams, the settings, logger, clock and JSON client.
 */
import type { Door } from '../compose/door.js';

export type HttpDoor = Omit<Door, 'tasks' | 'answerSnapshots' | 'oauth' | 'tracing' | 'readiness'>;

/** The HTTP door's view of an app. */
export function httpDoorOf(app: Door): HttpDoor {
  return {
    config: app.config,
    postJson: app.postJson,
    logger: app.logger,
    clock: app.clock,
    onClose: app.onClose,
    close: app.close,
    ops: app.ops,
    keys: app.keys,
    auth: app.auth,
    accounts: app.accounts,
    agentRuns: app.agentRuns,
    consoleSessions: app.consoleSessions,
    metrics: app.metrics,
  };
}
