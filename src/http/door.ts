/**
 * What the REST door and the Responses door are built on: the operations (run through src/ops/invoke.ts),
 * the three services a door answers with itself (keys to authenticate, accounts for rates and prices,
 * agent runs for the Responses door's streams), the settings, logger, clock and JSON client.
 */
import type { Door } from '../compose/door.js';
import type { Services } from '../core/ports.js';
import { createOpRunner, type OpRunner } from '../ops/invoke.js';

export interface HttpDoor extends Omit<Door, 'services' | 'tasks'> {
  services: Pick<Services, 'keys' | 'accounts' | 'agentRuns'>;
  ops: OpRunner;
}

/** The HTTP door's view of an app. */
export function httpDoorOf(app: Door): HttpDoor {
  const { keys, accounts, agentRuns } = app.services;
  return {
    config: app.config,
    postJson: app.postJson,
    logger: app.logger,
    clock: app.clock,
    onClose: app.onClose,
    close: app.close,
    services: { keys, accounts, agentRuns },
    ops: createOpRunner(app.services),
  };
}
