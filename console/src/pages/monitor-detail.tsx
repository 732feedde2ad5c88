/**
 * One monitor: edit it, run it now, its runs with their results (rendered as text, links only to
 * http(s)), and its webhook deliveries with the receiver's answers and a "Retry" on a failed one.
 */
import { useState } from 'preact/hooks';
import { api, post } from '../lib/api';
import { duration, json } from '../lib/format';
import { useLoad, usePaged, usePoll } from '../lib/hooks';
import { monitorPath, type Delivery, type Monitor, type MonitorRun } from '../lib/monitors';
import { hrefOf } from '../lib/router';
import { ExternalLink } from '../components/external-link';
import { Badge, Card, ErrorNote, Loading, Notice, PageHeader, Pager, TableWrap, Time } from '../components/ui';
import { MonitorForm } from './monitor-form';

export function MonitorDetail(props: { id: string }) {
  const monitor = useLoad(() => api<Monitor>(monitorPath(props.id)), [props.id]);
  const runs = usePaged<MonitorRun>(monitorPath(props.id, '/runs'));
  const deliveries = usePaged<Delivery>(monitorPath(props.id, '/deliveries'));
  const [triggered, setTriggered] = useState<unknown>(null);
  const busy = (runs.data?.data ?? []).some((r) => r.status === 'pending' || r.status === 'running');
  const waiting = (deliveries.data?.data ?? []).some((d) => d.status === 'pending');
  // while a run or a delivery is under way, look again every two seconds
  usePoll(async () => (runs.reload(), deliveries.reload()), 2000, busy || waiting || triggered === true);

  const trigger = async () => {
    try {
      await post(monitorPath(props.id, '/trigger'));
      setTriggered(true);
      runs.restart();
      window.setTimeout(() => setTriggered(null), 10_000);
    } catch (e) {
      setTriggered(e);
    }
  };

  if (monitor.error) {
    return (
      <>
        <PageHeader title="Monitor" />
        <ErrorNote error={monitor.error} />
        <p>
          <a href={hrefOf('monitors')}>Back to the monitors</a>
        </p>
      </>
    );
  }
  if (!monitor.data) return <Loading what="the monitor" />;
  const m = monitor.data;
  return (
    <>
      <p class="crumbs">
        <a href={hrefOf('monitors')}>Monitors</a> /
      </p>
      <PageHeader title={m.name || m.id}>
        <Badge status={m.status} /> {m.trigger ? `Runs every ${m.trigger.period}` : 'Runs by hand'}; next run{' '}
        <Time iso={m.nextRunAt} />.
      </PageHeader>
      <Card
        title="Runs"
        testid="monitor-runs"
        actions={
          <button type="button" class="small" onClick={() => void trigger()} data-testid="monitor-trigger">
            Run now
          </button>
        }
      >
        {triggered === true && <Notice>Run started.</Notice>}
        {triggered instanceof Error && <ErrorNote error={triggered} />}
        <ErrorNote error={runs.error} />
        {runs.data && <RunList runs={runs.data.data} />}
        <Pager label="Runs" of={runs} />
      </Card>
      <Card title="Webhook deliveries" testid="monitor-deliveries">
        <ErrorNote error={deliveries.error} />
        {deliveries.data && (
          <DeliveryTable monitorId={m.id} deliveries={deliveries.data.data} onRetried={deliveries.reload} />
        )}
        <Pager label="Deliveries" of={deliveries} />
      </Card>
      <Card title="Edit" testid="edit-monitor">
        <MonitorForm monitor={m} onSaved={monitor.reload} />
      </Card>
    </>
  );
}

function RunList(props: { runs: MonitorRun[] }) {
  if (props.runs.length === 0) return <p class="muted">No run yet.</p>;
  return (
    <ul class="runs" data-testid="monitor-run-list">
      {props.runs.map((run) => (
        <li key={run.id} data-testid="monitor-run" data-run-id={run.id}>
          <details>
            <summary>
              <Badge status={run.status} /> <Time iso={run.createdAt} />{' '}
              <span class="muted">· {duration(run.durationMs)}</span>
              {run.failReason && <span class="error-text"> · {run.failReason}</span>}
              {run.output && <span class="muted"> · {run.output.results.length} results</span>}
            </summary>
            <RunOutput run={run} />
          </details>
        </li>
      ))}
    </ul>
  );
}

function RunOutput({ run }: { run: MonitorRun }) {
  if (!run.output) return <p class="muted">No output.</p>;
  const { results, content } = run.output;
  return (
    <div class="run-output">
      {content !== '' && <pre class="page-text">{typeof content === 'string' ? content : json(content)}</pre>}
      <ol class="plain-list">
        {results.map((r, i) => (
          <li key={i}>
            <ExternalLink url={r.url}>{r.title || r.url}</ExternalLink> <span class="muted small break">{r.url}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}

function DeliveryTable(props: { monitorId: string; deliveries: Delivery[]; onRetried: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const retry = async (d: Delivery) => {
    setError(null);
    try {
      await post(
        `/console/api/monitors/${encodeURIComponent(props.monitorId)}/deliveries/${encodeURIComponent(d.eventId)}/retry`,
      );
      props.onRetried();
    } catch (e) {
      setError(e);
    }
  };
  if (props.deliveries.length === 0) return <p class="muted">No delivery yet.</p>;
  return (
    <>
      <ErrorNote error={error} />
      <TableWrap label="Deliveries">
        <table class="data" data-testid="deliveries-table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Receiver's answers</th>
              <th scope="col">
                <span class="offscreen">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.deliveries.map((d) => (
              <tr key={d.eventId} data-testid="delivery-row" data-event-id={d.eventId} data-status={d.status}>
                <th scope="row">
                  {d.type}
                  <div class="muted small">
                    <Time iso={d.createdAt} /> · <span class="break">{d.url}</span>
                  </div>
                </th>
                <td>
                  <Badge status={d.status} testid="delivery-status" />
                  {d.nextAttemptAt && (
                    <div class="muted small">
                      next try <Time iso={d.nextAttemptAt} />
                    </div>
                  )}
                </td>
                <td class="small">
                  {d.attempts.length === 0 && <span class="muted">not tried yet</span>}
                  <ol class="plain-list">
                    {d.attempts.map((a, i) => (
                      <li key={i} data-testid="delivery-attempt">
                        {a.status === null ? 'no answer' : `HTTP ${a.status}`}{' '}
                        <span class="muted">in {duration(a.durationMs)}</span>
                        {a.error && a.error !== `HTTP ${a.status}` && <span class="error-text"> {a.error}</span>}
                      </li>
                    ))}
                  </ol>
                </td>
                <td>
                  {d.status === 'failed' && (
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() => void retry(d)}
                      data-testid="delivery-retry"
                    >
                      Retry
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
