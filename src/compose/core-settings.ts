/**
 * The core's settings from the config: each value as the config resolved it (its default is the SETTINGS
 * row's, src/config/settings/), in the units and groups the services take.
 */
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { CoreSettings } from './service-deps.js';

export function coreSettingsOf(config: Config): CoreSettings {
  return {
    robots: config.robots,
    fetchConcurrency: config.fetchConcurrency,
    providerTimeoutMs: config.providerTimeoutMs,
    rateLimitQps: config.rateLimitQps,
    rateLimitConcurrency: config.rateLimitConcurrency,
    agentConcurrency: config.agentConcurrency,
    searchCacheMb: config.searchCacheMb,
    metering: config.metering,
    agentMaxCost: config.agentMaxCost,
    monitors: {
      allowInsecureWebhooks: config.allowInsecureWebhooks,
      runConcurrency: config.monitorConcurrency,
      retryWindowMs: config.webhookRetryHours * 3_600_000,
      pollMs: config.pollMs,
      leaseMs: config.leaseMs,
    },
    agentRuns: { leaseMs: config.leaseMs, pollMs: config.pollMs },
    codeModel: config.codeModel,
    retention: {
      policy: {
        usage: config.retainUsageDays,
        agentEvents: config.retainAgentEventsDays,
        monitorRuns: config.retainMonitorRunsDays,
        deliveries: config.retainDeliveriesDays,
        mcpTasks: config.retainMcpDays,
        mcpSnapshots: config.retainMcpDays,
        crawlFrontier: config.retainCrawlFrontierDays,
        pageCache: config.retainPageCacheDays,
      },
      intervalMs: config.pruneIntervalMinutes * 60_000,
      leaseMs: config.leaseMs,
    },
    identityRule: { teamClaim: config.authTeamClaim, emailTeams: config.authEmailTeams },
    operatorJobs: { uploadDir: path.join(config.dataDir, 'uploads'), importMaxBytes: config.importMaxBytes },
    documents: {
      maxInflatedBytes: config.documentMaxInflatedBytes,
      timeoutMs: config.documentParseTimeoutMs,
      memoryMb: config.documentParseMemoryMb,
      threads: config.documentParseThreads,
    },
  };
}
