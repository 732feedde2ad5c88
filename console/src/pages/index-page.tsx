/**
 * Index (admin): the collections and code sources of the index, forms that start a crawl, an import of
 * an uploaded JSONL file or a code index of a folder on the server, and the jobs they start, with their
 * progress followed live.
 */
import { useState } from 'preact/hooks';
import { api, post, send } from '../lib/api';
import { count } from '../lib/format';
import { useLoad } from '../lib/hooks';
import type { OperatorJob } from '../lib/jobs';
import type { StatusReport } from '../lib/status';
import { FieldGroup, linesOf, numberOf, TextArea, TextField } from '../components/fields';
import { Card, ErrorNote, Loading, Notice, PageHeader } from '../components/ui';
import { Collections } from './overview';
import { JobList } from './jobs';

export function IndexPage() {
  const status = useLoad(() => api<StatusReport>('/status'), []);
  const [jobsVersion, setJobsVersion] = useState(0);
  const started = () => setJobsVersion((v) => v + 1);
  return (
    <>
      <PageHeader title="Index">What the index holds, and crawls, imports and code indexing to add to it.</PageHeader>
      <div class="grid-2">
        <Card title="Collections" testid="index-collections">
          {status.error ? (
            <ErrorNote error={status.error} />
          ) : status.data ? (
            <Collections report={status.data} />
          ) : (
            <Loading />
          )}
        </Card>
        <Card title="Code sources" testid="index-code">
          {status.data && (
            <dl class="facts">
              <dt>Sources</dt>
              <dd>{count(status.data.index.code.sources)}</dd>
              <dt>Files</dt>
              <dd>{count(status.data.index.code.files)}</dd>
              <dt>Chunks</dt>
              <dd>{count(status.data.index.code.chunks)}</dd>
              <dt>Documents in all</dt>
              <dd>{count(status.data.index.documents)}</dd>
            </dl>
          )}
        </Card>
      </div>
      <div class="grid-3">
        <CrawlForm onStarted={started} />
        <ImportForm onStarted={started} />
        <CodeForm onStarted={started} />
      </div>
      <JobList version={jobsVersion} onFinished={status.reload} />
    </>
  );
}

/** A form that starts a job: its error, and the id of the job it started. */
function useStart(onStarted: () => void) {
  const [error, setError] = useState<unknown>(null);
  const [job, setJob] = useState<OperatorJob | null>(null);
  const [busy, setBusy] = useState(false);
  const start = async (request: () => Promise<OperatorJob>) => {
    setBusy(true);
    setError(null);
    setJob(null);
    try {
      setJob(await request());
      onStarted();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const feedback = (
    <>
      <ErrorNote error={error} />
      {job && (
        <Notice testid="job-started">
          Started {job.kind} job {job.id}; its progress is below.
        </Notice>
      )}
    </>
  );
  return { start, busy, feedback };
}

function CrawlForm(props: { onStarted: () => void }) {
  const [urls, setUrls] = useState('');
  const [maxPages, setMaxPages] = useState('100');
  const [maxDepth, setMaxDepth] = useState('2');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const { start, busy, feedback } = useStart(props.onStarted);
  const submit = (e: Event) => {
    e.preventDefault();
    const body = {
      urls: linesOf(urls),
      ...(numberOf(maxPages) !== undefined && { maxPages: numberOf(maxPages) }),
      ...(numberOf(maxDepth) !== undefined && { maxDepth: numberOf(maxDepth) }),
      ...(linesOf(include).length > 0 && { include: linesOf(include) }),
      ...(linesOf(exclude).length > 0 && { exclude: linesOf(exclude) }),
    };
    void start(() => post<OperatorJob>('/console/api/crawls', body));
  };
  return (
    <Card title="Crawl a site" level={2} testid="crawl-card">
      <form class="stack" onSubmit={submit} data-testid="crawl-form">
        <TextArea
          label="Start URLs"
          value={urls}
          onValue={setUrls}
          required
          hint="One a line; links are followed on the same sites."
          testid="crawl-urls"
        />
        <div class="row">
          <TextField
            label="Max pages"
            type="number"
            min={1}
            value={maxPages}
            onValue={setMaxPages}
            testid="crawl-max-pages"
          />
          <TextField label="Max depth" type="number" min={0} max={100} value={maxDepth} onValue={setMaxDepth} />
        </div>
        <FieldGroup legend="Patterns (optional)">
          <TextArea label="Include" value={include} onValue={setInclude} rows={2} hint="Globs, one a line: /docs/*" />
          <TextArea label="Exclude" value={exclude} onValue={setExclude} rows={2} hint="Excludes win: *.pdf" />
        </FieldGroup>
        <button type="submit" disabled={busy} data-testid="crawl-submit">
          Start the crawl
        </button>
      </form>
      {feedback}
    </Card>
  );
}

function ImportForm(props: { onStarted: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const { start, busy, feedback } = useStart(props.onStarted);
  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void start(async () => {
      const text = await file.text();
      const response = await send('/console/api/imports', { body: text, contentType: 'application/x-ndjson' });
      return (await response.json()) as OperatorJob;
    });
  };
  return (
    <Card title="Import a file" level={2} testid="import-card">
      <form class="stack" onSubmit={submit} data-testid="import-form">
        <label class="field">
          <span class="label">JSONL file</span>
          <input
            type="file"
            accept=".jsonl,.ndjson,.json,application/x-ndjson"
            required
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            aria-describedby="import-hint"
            data-testid="import-file"
          />
          <span class="hint" id="import-hint">
            One document a line, as <code>trawl import</code> reads (docs/crawl-and-import.md).
          </span>
        </label>
        <button type="submit" disabled={busy || !file} data-testid="import-submit">
          Import
        </button>
      </form>
      {feedback}
    </Card>
  );
}

function CodeForm(props: { onStarted: () => void }) {
  const [path, setPath] = useState('');
  const { start, busy, feedback } = useStart(props.onStarted);
  const submit = (e: Event) => {
    e.preventDefault();
    void start(() => post<OperatorJob>('/console/api/code', { path: path.trim() }));
  };
  return (
    <Card title="Index code" level={2} testid="code-card">
      <form class="stack" onSubmit={submit} data-testid="code-form">
        <TextField
          label="Folder on the server"
          value={path}
          onValue={setPath}
          required
          placeholder="/srv/repos/project"
          hint="A path the server can read, as for trawl index PATH."
          testid="code-path"
        />
        <button type="submit" disabled={busy} data-testid="code-submit">
          Index the folder
        </button>
      </form>
      {feedback}
    </Card>
  );
}
