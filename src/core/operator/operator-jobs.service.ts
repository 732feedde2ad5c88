/**
 * The operator's background jobs started from the console: a crawl, an import of an uploaded JSONL
 * file, a code index of a folder on the server. A request checks what it asks, starts the job on this
 * process (./job-runner.ts: a row under a lease, progress about once a second, one end) and answers at
 * once; the jobs are the installation's (`operatorJob`: `admin` keys), listed newest first.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../../errors.js';
import type { OperatorJobRow } from '../../store/contracts/operator-jobs.js';
import { owned, ownerOf, reachOf, teamFilter } from '../access/access.js';
import type { Caller } from '../context.js';
import { decodeCursor, encodeCursor } from '../cursors.js';
import { checkCollection } from '../import/records.js';
import { createJobRunner, type JobStart, type JobWork } from './job-runner.js';
import { codeWork, crawlScopeOf, crawlWork, importWork, isFolder } from './kinds.js';
import type {
  CrawlJobRequest,
  CrawlJobView,
  JobProgress,
  OperatorJob,
  OperatorJobKind,
  OperatorJobsDeps,
  OperatorJobsService,
} from './operator-jobs.types.js';
import { spoolUpload } from './upload.js';

/** What a crawl job shows of its frontier: the first failures and the next queued URLs. */
const FRONTIER = { failures: 50, queued: 20 };
const STARTING: JobProgress = { done: 0, total: null, failed: 0, message: 'starting' };

/** Why `folder` cannot be indexed: not absolute, the file system's root (never meant), or not a folder. */
function folderProblem(folder: string): string | undefined {
  if (!path.isAbsolute(folder)) return 'is not an absolute path';
  const resolved = path.resolve(folder);
  if (resolved === path.parse(resolved).root) return 'is the root of the file system';
  return isFolder(resolved) ? undefined : 'is not a folder on the server';
}

const newJobId = () => `job_${randomBytes(12).toString('hex')}`;
const parse = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));

export function createOperatorJobs(deps: OperatorJobsDeps): OperatorJobsService {
  const { repo } = deps;
  const now = () => deps.clock.now().getTime();
  const runner = createJobRunner({
    repo,
    now,
    logger: deps.logger,
    leaseMs: deps.leaseMs,
    progressEveryMs: deps.progressEveryMs ?? 1000,
  });
  const uploadOf = (id: string) => path.join(deps.uploadDir, `${id}.jsonl`);

  const start = (
    kind: OperatorJobKind,
    id: string,
    input: object,
    caller: Caller | null,
    work: JobWork,
    onEnd?: () => Promise<void>,
  ) => {
    // prettier-ignore
    const owner = ownerOf(caller);
    const at = new Date(now()).toISOString();
    const job: JobStart = {
      id,
      kind,
      key_id: owner.keyId ?? 'local',
      team_id: owner.teamId,
      input: JSON.stringify(input),
      progress: JSON.stringify(STARTING),
      created_at: at,
      updated_at: at,
    };
    return runner.start(job, work, onEnd);
  };

  /** A crawl's frontier now, read through the crawl service (undefined: no such crawl any more). */
  const crawlView = async (input: CrawlJobRequest): Promise<CrawlJobView | null> => {
    const frontier = await deps.crawl.frontier(deps.crawl.jobIdOf(crawlScopeOf(input)), FRONTIER);
    if (!frontier) return null;
    const { queued, ...rest } = frontier;
    return { ...rest, frontier: queued };
  };

  /** A row as the console shows it, after the lapsed-lease rule (./job-runner.ts `settle`). */
  const view = async (stored: OperatorJobRow): Promise<OperatorJob> => {
    const row = await runner.settle(stored);
    if (row !== stored && row.kind === 'import') await fs.promises.rm(uploadOf(row.id), { force: true });
    const input = parse<Record<string, unknown>>(row.input) ?? {};
    return {
      id: row.id,
      kind: row.kind,
      state: row.state,
      input,
      progress: parse<JobProgress>(row.progress) ?? STARTING,
      result: parse<Record<string, unknown>>(row.result),
      error: row.error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(row.kind === 'crawl' ? { crawl: await crawlView(input as unknown as CrawlJobRequest) } : {}),
    };
  };

  return {
    async startCrawl(request, caller) {
      deps.crawl.jobIdOf(crawlScopeOf(request)); // INVALID_URLS now, not in the background
      return view(await start('crawl', newJobId(), request, caller, crawlWork(deps.crawl, request)));
    },

    async startImport({ upload, collection }, caller) {
      const bad = checkCollection(collection);
      if (bad) throw new ServiceError('INVALID_REQUEST_QUERY', `collection: ${bad}`, { field: 'collection' });
      if (runner.stopping) throw new ServiceError('SERVICE_UNAVAILABLE', 'The server is stopping; upload the file again to a running one.'); // prettier-ignore
      const id = newJobId();
      const file = uploadOf(id);
      // the whole file first: a file over the limit is refused (413) before any job exists
      const bytes = await spoolUpload(upload, file, deps.importMaxBytes);
      const removeFile = () => fs.promises.rm(file, { force: true });
      try {
        const work = importWork(deps.imports, file, collection);
        return await view(await start('import', id, { collection, bytes }, caller, work, removeFile));
      } catch (err) {
        await removeFile();
        throw err;
      }
    },

    async startCode(request, caller) {
      const problem = folderProblem(request.path);
      if (problem) {
        throw new ServiceError(
          'INVALID_REQUEST',
          `path: ${JSON.stringify(request.path.slice(0, 200))} ${problem}; give the absolute path of a folder the server can read`,
          { field: 'path' },
        );
      }
      return view(await start('code', newJobId(), request, caller, codeWork(deps.indexer, request)));
    },

    async list({ cursor, limit }, caller) {
      // the installation's: an `admin` key (or the local process) reaches every job
      const teamId = teamFilter(reachOf(caller, 'operatorJob'));
      const rows = await repo.page(decodeCursor('j', cursor), limit + 1, teamId);
      const kept = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return {
        data: await Promise.all(kept.map(view)),
        hasMore,
        nextCursor: hasMore && kept.length > 0 ? encodeCursor('j', kept.at(-1)!.seq) : null,
      };
    },

    async get(id, caller) {
      const row = owned(caller, 'operatorJob', await repo.get(id), (r) => ({ teamId: r.team_id, keyId: r.key_id }), `job ${id}`); // prettier-ignore
      return view(row);
    },

    stop: () => runner.stop(deps.stopWaitMs ?? 10_000),
  };
}
