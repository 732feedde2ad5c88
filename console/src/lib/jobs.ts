/** Operator jobs (`/console/api/jobs`): crawls, imports and code indexing started from the console. */

export interface CrawlDetail {
  counts: { queued: number; done: number; failed: number };
  failuresByTag: Record<string, number>;
  failures: { url: string; tag: string; error: string; httpStatusCode: number | null }[];
  frontier: { url: string; depth: number }[];
}

export interface OperatorJob {
  id: string;
  kind: 'crawl' | 'import' | 'code';
  state: 'running' | 'completed' | 'failed' | 'interrupted';
  input: Record<string, unknown>;
  progress: { done: number; total: number | null; failed: number; message: string | null };
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  crawl?: CrawlDetail;
}

/** What a job works on, in a few words (its seeds, its path, its file's size). */
export function jobSubject(job: OperatorJob): string {
  const input = job.input;
  if (Array.isArray(input.urls)) return (input.urls as unknown[]).map(String).join(', ');
  if (typeof input.path === 'string') return input.path;
  if (typeof input.bytes === 'number') return `${input.bytes.toLocaleString('en-US')} bytes`;
  return '';
}
