/**
 * Agent runs (scope `agent`): the key's runs, a form that starts one, and the key's MCP tasks; a run's
 * page (`#/runs/<id>`) follows its events live, or replays them once it has ended.
 */
import { useState } from 'preact/hooks';
import { post } from '../lib/api';
import type { AgentRun, McpTask } from '../lib/agent';
import { usePaged } from '../lib/hooks';
import { hrefOf, navigate } from '../lib/router';
import { SelectField, TextArea } from '../components/fields';
import { Badge, Card, ErrorNote, Loading, markNavigation, PageHeader, Pager, TableWrap, Time } from '../components/ui';
import type { PageProps } from '../pages';
import { RunDetail } from './run-detail';

export function RunsPage({ param }: PageProps) {
  if (param) return <RunDetail id={param} />;
  return (
    <>
      <PageHeader title="Agent runs">Research tasks run by the agent, and the MCP tasks of this key.</PageHeader>
      <StartRun />
      <RunList />
      <TaskList />
    </>
  );
}

const EFFORTS = [
  ['auto', 'auto (metered, up to $5)'],
  ['minimal', 'minimal ($0.012)'],
  ['low', 'low ($0.025)'],
  ['medium', 'medium ($0.10)'],
  ['high', 'high ($0.50)'],
  ['xhigh', 'xhigh ($1.00)'],
] as const;

function StartRun() {
  const [query, setQuery] = useState('');
  const [instructions, setInstructions] = useState('');
  const [effort, setEffort] = useState('auto');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const run = await post<AgentRun>('/agent/runs', {
        query: query.trim(),
        effort,
        ...(instructions.trim() && { systemPrompt: instructions.trim() }),
      });
      markNavigation();
      navigate('runs', run.id);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Card title="Start a run" testid="start-run">
      <form class="form-grid" onSubmit={(e) => void submit(e)} data-testid="start-run-form">
        <TextArea
          label="Task"
          value={query}
          onValue={setQuery}
          required
          rows={3}
          hint="What to research, list or enrich."
          testid="run-query"
        />
        <TextArea label="Instructions (optional)" value={instructions} onValue={setInstructions} rows={2} />
        <SelectField label="Effort" value={effort} onValue={setEffort} options={EFFORTS} testid="run-effort" />
        <div class="form-actions">
          <button type="submit" disabled={busy} data-testid="start-run-submit">
            Start the run
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </Card>
  );
}

function RunList() {
  const page = usePaged<AgentRun>('/agent/runs');
  return (
    <Card title="Runs" testid="runs">
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading what="the runs" />}
      {page.data && page.data.data.length === 0 && <p class="muted">No run yet.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableWrap label="Runs">
          <table class="data" data-testid="runs-table">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((run) => (
                <tr key={run.id} data-testid="run-row" data-run-id={run.id}>
                  <th scope="row" class="break">
                    <a href={hrefOf('runs', run.id)} onClick={markNavigation}>
                      {String(run.request.query ?? run.id).slice(0, 160)}
                    </a>
                  </th>
                  <td>
                    <Badge status={run.status} />
                  </td>
                  <td>
                    <Time iso={run.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager label="Runs" of={page} />
    </Card>
  );
}

function TaskList() {
  const page = usePaged<McpTask>('/console/api/tasks');
  return (
    <Card title="MCP tasks" testid="tasks">
      <ErrorNote error={page.error} />
      {page.loading && !page.data && <Loading what="the tasks" />}
      {page.data && page.data.data.length === 0 && <p class="muted">No MCP task of this key.</p>}
      {page.data && page.data.data.length > 0 && (
        <TableWrap label="MCP tasks">
          <table class="data" data-testid="tasks-table">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Status</th>
                <th scope="col">Message</th>
                <th scope="col">Updated</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((t) => (
                <tr key={t.taskId} data-testid="task-row">
                  <th scope="row">
                    {t.tool}
                    <div class="muted small">
                      <code>{t.taskId}</code>
                    </div>
                  </th>
                  <td>
                    <Badge status={t.status} />
                  </td>
                  <td>{t.statusMessage ?? <span class="muted">—</span>}</td>
                  <td>
                    <Time iso={t.lastUpdatedAt} />
                  </td>
                  <td>{t.runId ? <a href={hrefOf('runs', t.runId)}>{t.runId}</a> : <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager label="MCP tasks" of={page} />
    </Card>
  );
}
