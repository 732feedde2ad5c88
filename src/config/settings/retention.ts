/** Settings of retention: how long each kind of record is kept, and how often the pruning sweep runs. */
import { z } from 'zod';
import { integer } from './fields.js';

/** The most days a retention may name (a hundred years); more is a typo. */
const MAX_DAYS = 36_500;

/**
 * Days to keep, from text (a variable, a flag) or a number: a whole number of days, or `0` or `forever`
 * to keep for ever (null).
 */
export const retentionDays = z.union([z.string(), z.number()]).transform((given, ctx): number | null => {
  const text = String(given).trim().toLowerCase();
  if (text === 'forever' || text === '0') return null;
  if (/^\d+$/.test(text) && Number(text) <= MAX_DAYS) return Number(text);
  ctx.addIssue({ code: 'custom', message: `must be a whole number of days up to ${MAX_DAYS}, or 0 or "forever" to keep for ever` }); // prettier-ignore
  return z.NEVER;
});

const days = (env: string, flag: string, fallback: number | null, doc: string) =>
  ({ env, flag, schema: retentionDays, default: fallback, doc }) as const;

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const RETENTION_SETTINGS = {
  retainUsageDays: days(
    'TRAWL_RETAIN_USAGE_DAYS',
    '--retain-usage-days',
    400,
    'Days the daily usage rows (spend and latency per key, day and operation) are kept; whole months past it are folded into monthly totals (`usage_months`), so spend, credits and `trawl usage` stay exact (docs/operations.md#retention). `0` or `forever`: kept for ever.',
  ),
  retainAgentEventsDays: days(
    'TRAWL_RETAIN_AGENT_EVENTS_DAYS',
    '--retain-agent-events-days',
    30,
    "Days an agent run's events (its stream and replay) are kept after the run ended; the run and its output stay. A running run's events are never pruned. `0` or `forever`: kept for ever.",
  ),
  retainMonitorRunsDays: days(
    'TRAWL_RETAIN_MONITOR_RUNS_DAYS',
    '--retain-monitor-runs-days',
    90,
    "Days a monitor's ended runs are kept; its five newest completed runs stay whatever their age (its next run deduplicates against them). `0` or `forever`: kept for ever.",
  ),
  retainDeliveriesDays: days(
    'TRAWL_RETAIN_DELIVERIES_DAYS',
    '--retain-deliveries-days',
    30,
    'Days a webhook delivery that is settled (delivered or given up) is kept, with its attempts, after it was made; a pending delivery is never pruned. `0` or `forever`: kept for ever.',
  ),
  retainMcpDays: days(
    'TRAWL_RETAIN_MCP_DAYS',
    '--retain-mcp-days',
    7,
    'Days an ended MCP task and an MCP answer snapshot stay after they expired (they cannot be read after; a new one written also sweeps expired ones). An open task is never pruned. `0` or `forever`: kept for ever.',
  ),
  retainCrawlFrontierDays: days(
    'TRAWL_RETAIN_CRAWL_FRONTIER_DAYS',
    '--retain-crawl-frontier-days',
    14,
    "Days the frontier (the URLs walked) of a finished crawl is kept after it finished; the crawl's pages stay in the documents. An active crawl's frontier is never pruned. `0` or `forever`: kept for ever.",
  ),
  retainPageCacheDays: days(
    'TRAWL_RETAIN_PAGE_CACHE_DAYS',
    '--retain-page-cache-days',
    30,
    "Days a fetched page and its raw response stay in the page cache after they were fetched; older ones are fetched again when asked for live, and a cache-only read falls back on the documents store (the page's document is not pruned). `0` or `forever`: kept for ever.",
  ),
  pruneIntervalMinutes: {
    env: 'TRAWL_PRUNE_INTERVAL_MINUTES',
    flag: '--prune-interval-minutes',
    schema: integer(0, 10_080),
    default: 60,
    doc: 'How often a serving process runs the retention sweep (one process of all those sharing the store at a time, under a lease); `0`: only `trawl prune` sweeps.',
  },
} as const;
