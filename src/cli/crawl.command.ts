/**
 * `trawl crawl URL…`: crawls sites into the document store, with progress on stderr and a summary on
 * stdout. Ctrl-C stops taking new pages (twice: cancels those in flight); the same command resumes.
 */
import { openDoor } from '../compose/open.js';
import type { Config } from '../config/config.js';
import {
  CRAWL_BOUNDS,
  type CrawlProgress,
  type CrawlRunOptions,
  type CrawlScope,
  type CrawlSummary,
} from '../core/crawl/crawl.types.js';
import { ServiceError } from '../errors.js';
import { createProgress, parseProgressMode, type ProgressMode, type ProgressReporter } from './progress.js';

/** The flags of `trawl crawl`, as commander parses them. */
export interface CrawlFlags {
  depth?: string;
  limit?: string;
  include?: string[];
  exclude?: string[];
  concurrency?: string;
  perHost?: string;
  delay?: string;
  timeout?: string;
  sitemaps?: boolean;
  resume?: boolean;
  restart?: boolean;
  json?: boolean;
  progress?: string;
}

/** Defaults and bounds of the numeric flags: the crawl's own (core/crawl), under their flags' names. */
export const CRAWL_NUMBERS = {
  depth: { flag: '--depth', ...CRAWL_BOUNDS.depth },
  limit: { flag: '--limit', ...CRAWL_BOUNDS.limit },
  concurrency: { flag: '--concurrency', ...CRAWL_BOUNDS.concurrency },
  perHost: { flag: '--per-host', ...CRAWL_BOUNDS.perHost },
  delay: { flag: '--delay', ...CRAWL_BOUNDS.delay },
  timeout: { flag: '--timeout', ...CRAWL_BOUNDS.timeout },
} as const;

/** Bad command-line input: reported without a stack, exit code 2. */
class UsageError extends Error {}

function numberFlag(flags: CrawlFlags, name: keyof typeof CRAWL_NUMBERS): number {
  const spec = CRAWL_NUMBERS[name];
  const raw = flags[name];
  if (raw === undefined) return spec.default;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < spec.min || n > spec.max) {
    throw new UsageError(
      `${spec.flag} must be an integer from ${spec.min} to ${spec.max} (got ${JSON.stringify(raw)})`,
    );
  }
  return n;
}

/** The command line read into a crawl: its scope, the run's options (signals added later), the progress mode. */
interface CrawlRequest {
  scope: CrawlScope;
  run: Omit<CrawlRunOptions, 'stop' | 'abort' | 'onProgress'>;
  progress: ProgressMode;
}

function parseFlags(urls: string[], flags: CrawlFlags): CrawlRequest {
  if (flags.resume && flags.restart) throw new UsageError('use either --resume or --restart, not both');
  const progress = parseProgressMode(flags.progress);
  if (!progress) throw new UsageError('--progress must be auto, bar, lines or off');
  return {
    scope: {
      seeds: urls,
      depth: numberFlag(flags, 'depth'),
      include: flags.include ?? [],
      exclude: flags.exclude ?? [],
      sitemaps: flags.sitemaps !== false,
    },
    run: {
      limit: numberFlag(flags, 'limit'),
      concurrency: numberFlag(flags, 'concurrency'),
      perHost: numberFlag(flags, 'perHost'),
      delayMs: numberFlag(flags, 'delay'),
      timeoutMs: numberFlag(flags, 'timeout'),
      mode: flags.restart ? 'restart' : flags.resume ? 'resume' : 'auto',
    },
    progress: progress as ProgressMode,
  };
}

/** One summary line: status, counts, time and rate, job id, failures by tag. */
export function summaryLine(s: CrawlSummary): string {
  const rate = s.elapsedMs > 0 ? (s.attemptedThisRun / s.elapsedMs) * 1000 : 0;
  const tags = Object.entries(s.failedByTag)
    .map(([tag, n]) => `${tag}×${n}`)
    .join(' ');
  return (
    `${s.status}: ${s.done} done, ${s.failed} failed, ${s.queued} queued; ` +
    `${s.attemptedThisRun} page${s.attemptedThisRun === 1 ? '' : 's'} this run ` +
    `in ${(s.elapsedMs / 1000).toFixed(1)} s (${rate.toFixed(1)} pages/s); job ${s.jobId}` +
    (tags ? `; failed: ${tags}` : '')
  );
}

/** A crawl that stored no page at all (every seed failed) has failed: exit 1. */
const nothingFetched = (s: CrawlSummary) => s.status !== 'interrupted' && s.done === 0 && s.failed > 0;
const NOTHING_FETCHED = 'no page was fetched; the reason for each URL is above';

const HINTS: Record<CrawlSummary['status'], string | undefined> = {
  finished: undefined,
  limit: 'stopped at --limit; run again with a larger --limit to continue this crawl',
  interrupted: 'interrupted; run the same command again to resume',
};

/** Installs SIGINT/SIGTERM handling: first SIGINT stops taking pages, a second (or SIGTERM) cancels them. */
function signals(onNote: (m: string) => void) {
  const stop = new AbortController();
  const abort = new AbortController();
  let exitCode = 130;
  const onInt = () => {
    if (stop.signal.aborted) return abort.abort();
    stop.abort();
    onNote('stopping: letting pages in flight finish (Ctrl-C again to cancel them)');
  };
  const onTerm = () => {
    exitCode = 143;
    stop.abort();
    abort.abort();
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    stop: stop.signal,
    abort: abort.signal,
    get exitCode() {
      return exitCode;
    },
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/** Feeds crawl progress to the reporter; the bar runs to the limit when the frontier is larger. */
function progressHandler(progress: ProgressReporter, limit: number) {
  return (p: CrawlProgress) => {
    const target = Math.min(limit, p.done + p.failed + p.queued);
    const fraction = target > 0 ? (p.done + p.failed) / target : 0;
    progress.update({ ...p, handled: p.attemptedThisRun - p.inFlight, fraction });
  };
}

/** Each failed page with its reason, on stderr (the summary keeps the first 100; the rest are counted). */
function failureLines(summary: CrawlSummary): string[] {
  const lines = summary.failures.map((f) => {
    const http = f.httpStatusCode ? ` (HTTP ${f.httpStatusCode})` : '';
    return `failed ${f.url}: ${f.tag}${http}${f.error ? `: ${f.error}` : ''}`;
  });
  const more = summary.failed - summary.failures.length;
  if (more > 0) lines.push(`… and ${more} more failed page${more === 1 ? '' : 's'}`);
  return lines;
}

/** The failures and the hint (stderr), then the summary line or JSON (stdout). */
function printSummary(summary: CrawlSummary, json: boolean): void {
  for (const line of failureLines(summary)) process.stderr.write(`crawl: ${line}\n`);
  if (nothingFetched(summary)) process.stderr.write(`crawl: ${NOTHING_FETCHED}\n`);
  const hint = HINTS[summary.status];
  if (hint) process.stderr.write(`crawl: ${hint}\n`);
  const rate = summary.elapsedMs > 0 ? (summary.attemptedThisRun / summary.elapsedMs) * 1000 : 0;
  process.stdout.write(
    json ? `${JSON.stringify({ ...summary, pagesPerSecond: Number(rate.toFixed(2)) })}\n` : `${summaryLine(summary)}\n`,
  );
}

/**
 * Runs `trawl crawl`; exits 0 (finished or at its limit, some page stored), 1 (no page could be
 * fetched, each URL's reason printed; or another process walks this crawl, the error says which),
 * 130/143 (signal) or 2 (bad input).
 */
export async function runCrawl(config: Config, urls: string[], flags: CrawlFlags): Promise<void> {
  let parsed: CrawlRequest;
  try {
    parsed = parseFlags(urls, flags);
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    throw err;
  }
  // with PostgreSQL, pages go to the shared store; the serving replicas index them
  const app = await openDoor(config, { follow: false });
  const progress = createProgress({ label: 'crawl', unit: 'pages', mode: parsed.progress });
  const sig = signals((m) => progress.note(m));
  let summary: CrawlSummary;
  try {
    summary = await app.operator.crawl.run(parsed.scope, {
      ...parsed.run,
      stop: sig.stop,
      abort: sig.abort,
      onProgress: progressHandler(progress, parsed.run.limit),
    });
  } catch (err) {
    progress.finish();
    await app.close();
    if (err instanceof ServiceError && (err.tag === 'INVALID_URLS' || err.tag === 'NOT_FOUND')) {
      usage(err.message);
      process.exit(2);
    }
    throw err;
  } finally {
    sig.dispose();
  }
  progress.finish();
  printSummary(summary, flags.json === true);
  await app.close();
  process.exit(summary.status === 'interrupted' ? sig.exitCode : nothingFetched(summary) ? 1 : 0);
}

function usage(message: string): void {
  process.stderr.write(`trawl crawl: ${message}\n`);
  process.exitCode = 2;
}
