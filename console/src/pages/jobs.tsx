/**
 * The jobs list of the index page: each job's state and progress, running ones polled every second
 * (`GET /console/api/jobs/:id`), and a crawl's counts, failures by reason and frontier on demand.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { count, json } from '../lib/format';
import { usePaged, usePoll } from '../lib/hooks';
import { jobSubject, type CrawlDetail, type OperatorJob } from '../lib/jobs';
import { ExternalLink } from '../components/external-link';
import { Badge, Card, ErrorNote, Loading, Pager, TableWrap, Time } from '../components/ui';

export function JobList(props: { version: number; onFinished: () => void }) {
  const page = usePaged<OperatorJob>('/console/api/jobs');
  const [fresh, setFresh] = useState<Record<string, OperatorJob>>({});
  const [open, setOpen] = useState<string | null>(null);
  const firstVersion = useRef(props.version);

  useEffect(() => {
    if (props.version !== firstVersion.current) page.restart();
    // a new job was started: show the first page again, where it is
  }, [props.version]);

  const jobs = (page.data?.data ?? []).map((j) => fresh[j.id] ?? j);
  const running = jobs.filter((j) => j.state === 'running');
  usePoll(
    async () => {
      for (const job of running) {
        const next = await api<OperatorJob>(`/console/api/jobs/${encodeURIComponent(job.id)}`);
        setFresh((f) => ({ ...f, [next.id]: next }));
        if (next.state !== 'running') props.onFinished();
      }
    },
    1000,
    running.length > 0,
  );

  return (
    <Card title="Jobs" testid="jobs">
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading what="the jobs" />}
      {page.data && jobs.length === 0 && <p class="muted">No job yet: start one above.</p>}
      {jobs.length > 0 && (
        <TableWrap label="Jobs">
          <table class="data" data-testid="jobs-table">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">State</th>
                <th scope="col">Progress</th>
                <th scope="col">Started</th>
                <th scope="col">
                  <span class="offscreen">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <JobRow
                  key={job.id}
                  job={job}
                  open={open === job.id}
                  toggle={() => setOpen(open === job.id ? null : job.id)}
                />
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager label="Jobs" of={page} />
    </Card>
  );
}

function JobRow(props: { job: OperatorJob; open: boolean; toggle: () => void }) {
  const { job } = props;
  const { done, total, failed, message } = job.progress;
  const detailId = `job-${job.id}-detail`;
  return (
    <>
      <tr data-testid="job-row" data-job-id={job.id} data-state={job.state}>
        <th scope="row">
          {job.kind} <span class="muted small break">{jobSubject(job)}</span>
          <div class="muted small">
            <code>{job.id}</code>
          </div>
        </th>
        <td>
          <Badge status={job.state} testid="job-state" />
        </td>
        <td class="progress-cell">
          {total !== null ? (
            <progress
              max={Math.max(total, 1)}
              value={Math.min(done, total)}
              aria-label={`${job.kind} ${job.id} progress`}
            />
          ) : (
            <progress
              aria-label={`${job.kind} ${job.id} progress`}
              {...(job.state === 'running' ? {} : { max: 1, value: 1 })}
            />
          )}
          <div class="small" data-testid="job-progress">
            {count(done)}
            {total !== null && ` of ${count(total)}`} done{failed > 0 && `, ${count(failed)} failed`}
          </div>
          {message && <div class="muted small">{message}</div>}
          {job.error && <div class="error-text small">{job.error}</div>}
        </td>
        <td>
          <Time iso={job.createdAt} />
        </td>
        <td>
          <button
            type="button"
            class="secondary small"
            aria-expanded={props.open}
            aria-controls={detailId}
            onClick={props.toggle}
            data-testid="job-details"
          >
            {props.open ? 'Hide' : 'Details'}
          </button>
        </td>
      </tr>
      {props.open && (
        <tr id={detailId} class="detail-row">
          <td colSpan={5}>
            <JobDetail job={job} />
          </td>
        </tr>
      )}
    </>
  );
}

function JobDetail({ job }: { job: OperatorJob }) {
  return (
    <div class="job-detail" data-testid="job-detail">
      {job.crawl && <CrawlView crawl={job.crawl} />}
      {job.result && (
        <>
          <h3>Result</h3>
          <pre>{json(job.result)}</pre>
        </>
      )}
      <h3>Input</h3>
      <pre>{json(job.input)}</pre>
    </div>
  );
}

function CrawlView({ crawl }: { crawl: CrawlDetail }) {
  const reasons = Object.entries(crawl.failuresByTag).sort((a, b) => b[1] - a[1]);
  return (
    <>
      <h3>Crawl</h3>
      <p data-testid="crawl-counts">
        {count(crawl.counts.done)} done, {count(crawl.counts.queued)} queued, {count(crawl.counts.failed)} failed
      </p>
      {reasons.length > 0 && (
        <table class="data compact" data-testid="crawl-failures-by-tag">
          <caption>Failures by reason</caption>
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col" class="num">
                Pages
              </th>
            </tr>
          </thead>
          <tbody>
            {reasons.map(([tag, n]) => (
              <tr key={tag}>
                <th scope="row">
                  <code>{tag}</code>
                </th>
                <td class="num">{count(n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {crawl.failures.length > 0 && (
        <>
          <h4>Failed pages</h4>
          <ul class="plain-list" data-testid="crawl-failures">
            {crawl.failures.map((f, i) => (
              <li key={i}>
                <ExternalLink url={f.url} /> <code>{f.tag}</code>
                {f.httpStatusCode !== null && ` (HTTP ${f.httpStatusCode})`} <span class="muted">{f.error}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h4>Frontier</h4>
      {crawl.frontier.length === 0 ? (
        <p class="muted">Nothing queued.</p>
      ) : (
        <ul class="plain-list" data-testid="crawl-frontier">
          {crawl.frontier.map((f, i) => (
            <li key={i}>
              <span class="muted">depth {f.depth}</span> <ExternalLink url={f.url} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
