/**
 * The work of each kind of operator job, through the services the command line uses for the same
 * (`trawl crawl`: the crawl service; `trawl import`: the import service; `trawl index`: the code
 * indexer): each reports its progress, stops when its signal aborts, and ends with what it did.
 */
import fs from 'node:fs';
import { CRAWL_BOUNDS, type CrawlScope, type CrawlService, type CrawlSummary } from '../crawl/crawl.types.js';
import type { CodeIndexer } from '../code/index/indexer.js';
import type { ImportIssue, ImportService } from '../import/import.service.js';
import type { JobWork } from './job-runner.js';
import type { CodeJobRequest, CrawlJobRequest } from './operator-jobs.types.js';

/** Issues an import job keeps in its result (the rest are counted). */
const KEPT_ISSUES = 50;
/** Records an import writes per transaction (as `trawl import`). */
const IMPORT_BATCH = 1000;

/** The scope of a crawl request, with the crawl's defaults. */
export function crawlScopeOf(request: CrawlJobRequest): CrawlScope {
  return {
    seeds: request.urls,
    depth: request.maxDepth ?? CRAWL_BOUNDS.depth.default,
    include: request.include ?? [],
    exclude: request.exclude ?? [],
    sitemaps: true,
  };
}

/** What a crawl's result keeps of its summary: the counts and reasons (its failures are in the frontier view). */
const crawlResult = ({ failures: _failures, ...summary }: CrawlSummary) => summary;

/** A crawl, run (or resumed) to its end, its page limit or the signal. */
export function crawlWork(crawl: CrawlService, request: CrawlJobRequest): JobWork {
  const limit = request.maxPages ?? CRAWL_BOUNDS.limit.default;
  return async (signal, report) => {
    const summary = await crawl.run(crawlScopeOf(request), {
      limit,
      concurrency: CRAWL_BOUNDS.concurrency.default,
      perHost: CRAWL_BOUNDS.perHost.default,
      delayMs: CRAWL_BOUNDS.delay.default,
      timeoutMs: CRAWL_BOUNDS.timeout.default,
      mode: 'auto',
      stop: signal,
      abort: signal,
      onProgress: (p) =>
        report({
          done: p.done,
          failed: p.failed,
          total: Math.min(limit, p.done + p.failed + p.queued),
          message: `${p.queued} queued, ${p.inFlight} in flight`,
        }),
    });
    report({ done: summary.done, failed: summary.failed, total: summary.done + summary.failed + summary.queued, message: summary.status }); // prettier-ignore
    // as `trawl crawl` exits 1: a crawl that could store no page at all has failed
    const nothing = summary.done === 0 && summary.failed > 0 && summary.status !== 'interrupted';
    const failure = nothing ? `no page was fetched (${Object.entries(summary.failedByTag).map(([tag, n]) => `${tag}×${n}`).join(', ')}); see the failures` : undefined; // prettier-ignore
    return { result: crawlResult(summary), failure };
  };
}

/** An import of the JSONL file `file` (written from the upload) into `collection`; the file is the caller's to delete. */
export function importWork(imports: ImportService, file: string, collection: string): JobWork {
  return async (signal, report) => {
    const issues: ImportIssue[] = [];
    const result = await imports.importPath(file, {
      collection,
      batch: IMPORT_BATCH,
      signal,
      onIssue: (issue) => void (issues.length < KEPT_ISSUES && issues.push(issue)),
      onProgress: (p) =>
        report({
          done: p.imported,
          failed: p.errors,
          total: null,
          message: `${Math.round(p.fraction * 100)} % of the file read`,
        }),
    });
    const kept = issues.map(({ line, message }) => ({ line: line ?? null, message }));
    const { input: _file, ...counts } = result;
    return { result: { ...counts, issues: kept } };
  };
}

/** A code index of a folder on the server, re-indexing only what changed (as `trawl index PATH`). */
export function codeWork(indexer: CodeIndexer, request: CodeJobRequest): JobWork {
  return async (signal, report) => {
    const onProgress = (done: number, total: number) =>
      report({ done, failed: 0, total, message: `${done} of ${total} files` });
    const indexed = await indexer.indexTree({ root: request.path, name: request.name }, { signal, onProgress });
    return { result: { ...indexed } };
  };
}

/** Whether `path` is a folder that exists (the request's `path` is checked before the job starts). */
export function isFolder(path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}
