/**
 * The engines of the services: monitors (scheduled searches and their webhooks) and agent runs, each a
 * service over its repository with a worker loop the app stops when it closes.
 */
import type { Accounts } from '../core/accounts/accounts.service.js';
import type { KeysService } from '../core/accounts/keys.service.js';
import { createAgentRunsService, type AgentRunsService } from '../core/agent/agent-runs.service.js';
import type { ContentsService } from '../core/contents/contents.service.js';
import { createMonitorsService, type MonitorsService } from '../core/monitors/monitors.service.js';
import { createRunSearch } from '../core/monitors/run-search.js';
import type { SearchService } from '../core/search/search.service.js';
import type { Synthesis } from '../core/synthesis/synthesis.service.js';
import type { IndexedDocuments } from '../core/documents/documents.types.js';
import type { ServiceDeps } from './service-deps.js';

/** The services the engines run their work with. */
export interface EngineParts {
  indexed: IndexedDocuments;
  keys: KeysService;
  accounts: Accounts;
  search: SearchService;
  contents: ContentsService;
  synthesis: Synthesis;
}

/** Agent runs one process runs at once, whatever the keys' own limits. */
const PROCESS_AGENT_RUNS = 8;
/** Webhook deliveries one process makes at once. */
const DELIVERY_CONCURRENCY = 8;

export function createEngines(
  deps: ServiceDeps,
  parts: EngineParts,
): { monitors: MonitorsService; agentRuns: AgentRunsService } {
  const { stores, settings } = deps;
  const { indexed, keys, accounts, search, contents, synthesis } = parts;
  const now = () => deps.clock.now().getTime();
  const monitors = createMonitorsService({
    repo: stores.monitors,
    box: deps.secretBox,
    sender: deps.webhookSender,
    execute: createRunSearch({
      repo: stores.monitors,
      documents: indexed,
      keys,
      accounts,
      search,
      contents,
      synthesis,
      now,
      logger: deps.logger,
    }),
    now,
    logger: deps.logger,
    hasModel: deps.model !== undefined,
    settings: { ...settings.monitors, deliveryConcurrency: DELIVERY_CONCURRENCY },
  });
  const agentRuns = createAgentRunsService({
    repo: stores.agentRuns,
    research: { search, contents, synthesis, prices: deps.prices, documents: indexed },
    accounts,
    callerOf: (keyId) => keys.callerOf(keyId),
    now,
    logger: deps.logger,
    hasModel: deps.model !== undefined,
    defaultRuns: settings.agentConcurrency,
    processConcurrency: PROCESS_AGENT_RUNS,
    maxBudgetDollars: settings.agentMaxCost,
    leaseMs: settings.agentRuns.leaseMs,
    pollMs: settings.agentRuns.pollMs,
    providerNames: deps.webSearch.map((p) => p.name),
  });
  return { monitors, agentRuns };
}
