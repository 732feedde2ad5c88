/**
 * What a door (HTTP, MCP, CLI) is built on: the operations' services, the settings, the logger and clock,
 * the JSON client a door calls out with, and the app's close. The store's handles (the database, the
 * repositories, the shared PostgreSQL store) are not part of it: a door reaches data through services.
 */
import type { Config } from '../config/config.js';
import type { Clock } from '../core/context.js';
import type { TaskJobs } from '../core/jobs/tasks.js';
import type { Services } from '../core/ports.js';
import type { ApiClient } from '../fetch/api-client.js';
import type { Logger } from '../lib/logger.js';

export interface Door {
  config: Config;
  /**
   * JSON POST over the app's API client (timeouts, size caps, secret-free errors), for what a door calls
   * out to itself: the x402 facilitator of the HTTP door.
   */
  postJson: ApiClient['postJson'];
  logger: Logger;
  clock: Clock;
  /** The services the operations are handed (each op only those it declares: src/ops/invoke.ts). */
  services: Services;
  /** Tool calls that run on after their request (the MCP door presents them as MCP tasks). */
  tasks: TaskJobs;
  /**
   * Runs `stop` first when the app closes, before its engines, fetcher and model clients: for work a
   * door started on the app (MCP tasks), which must end before the clients it uses wait for it.
   */
  onClose(stop: () => void | Promise<void>): void;
  close(): Promise<void>;
}
