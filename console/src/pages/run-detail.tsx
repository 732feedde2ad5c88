/**
 * One agent run: its events from `/console/api/agent/runs/:id/events` (read from a `fetch` body, as
 * EventSource cannot send the CSRF header), followed live while it runs and replayed once it has ended;
 * its output rendered as text; cancel.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, post, readEventStream, send } from '../lib/api';
import { describeEvent, isLive, type AgentRun, type RunEvent } from '../lib/agent';
import { dollars, json } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { hrefOf } from '../lib/router';
import { ExternalLink } from '../components/external-link';
import { Badge, Card, ConfirmButton, ErrorNote, Loading, PageHeader } from '../components/ui';

const runPath = (id: string, rest = '') => `/agent/runs/${encodeURIComponent(id)}${rest}`;

/**
 * The run's events: replayed from the start, then followed until the run ends. A stream that closes
 * while the run is still queued or running (a restart, a proxy's time-out) is opened again from the last
 * event it gave (`Last-Event-ID`).
 */
function useRunEvents(id: string, onEnd: () => void) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [state, setState] = useState<'connecting' | 'open' | 'ended'>('connecting');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const abort = new AbortController();
    let lastId: string | null = null;
    setEvents([]);
    setState('connecting');
    const once = async () => {
      const response = await send(`/console/api/agent/runs/${encodeURIComponent(id)}/events`, {
        accept: 'text/event-stream',
        headers: lastId ? { 'last-event-id': lastId } : {},
        signal: abort.signal,
      });
      setState('open');
      await readEventStream(response, (e) => {
        lastId = e.id ?? lastId;
        setEvents((list) => [...list, { id: e.id, event: e.event, data: parseData(e.data) }]);
      });
    };
    const follow = async () => {
      for (let attempt = 0; attempt < 20 && !abort.signal.aborted; attempt++) {
        await once();
        const run = await api<AgentRun>(runPath(id), { signal: abort.signal });
        if (!isLive(run)) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      setState('ended');
      onEnd();
    };
    follow().catch((e: unknown) => {
      if (abort.signal.aborted) return;
      setError(e);
      setState('ended');
    });
    return () => abort.abort();
  }, [id]);
  return { events, state, error };
}

/** An event's data: JSON as the server sends it, else the text itself. */
function parseData(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : { message: text };
  } catch {
    return { message: text };
  }
}

export function RunDetail(props: { id: string }) {
  const run = useLoad(() => api<AgentRun>(runPath(props.id)), [props.id]);
  const stream = useRunEvents(props.id, run.reload);
  const [cancelError, setCancelError] = useState<unknown>(null);
  const cancel = async () => {
    setCancelError(null);
    try {
      await post(runPath(props.id, '/cancel'));
      run.reload();
    } catch (e) {
      setCancelError(e);
    }
  };
  if (run.error) {
    return (
      <>
        <PageHeader title="Agent run" />
        <ErrorNote error={run.error} />
        <p>
          <a href={hrefOf('runs')}>Back to the runs</a>
        </p>
      </>
    );
  }
  if (!run.data) return <Loading what="the run" />;
  const r = run.data;
  return (
    <>
      <p class="crumbs">
        <a href={hrefOf('runs')}>Agent runs</a> /
      </p>
      <PageHeader title={`Run ${r.id}`}>{String(r.request.query ?? '')}</PageHeader>
      <Card
        title="Status"
        testid="run-status"
        actions={
          isLive(r) && (
            <ConfirmButton label="Cancel the run" confirmLabel="Cancel it now" onConfirm={cancel} testid="run-cancel" />
          )
        }
      >
        <p>
          <Badge status={r.status} testid="run-state" /> effort {String(r.request.effort ?? 'auto')}
          {r.costDollars?.total !== undefined && <> · cost {dollars(r.costDollars.total)}</>}
        </p>
        {r.error && <p class="note error">{`${r.error.message} (${r.error.code})`}</p>}
        <ErrorNote error={cancelError} />
      </Card>
      <Card
        title={`Events (${stream.state === 'ended' ? (isLive(r) ? 'stream closed' : 'replayed') : 'live'})`}
        testid="run-events"
      >
        <ErrorNote error={stream.error} />
        <ol class="events" aria-live="polite" data-testid="run-event-list" data-state={stream.state}>
          {stream.events.map((e, i) => (
            <li key={e.id ?? i} data-testid="run-event" data-event={e.event}>
              <code>{e.event}</code> <span>{describeEvent(e)}</span>
              {typeof e.data.url === 'string' && (
                <>
                  {' '}
                  <ExternalLink url={e.data.url}>{String(e.data.title ?? e.data.url)}</ExternalLink>
                </>
              )}
            </li>
          ))}
        </ol>
        {stream.state !== 'ended' && <p class="muted small">Following the run…</p>}
      </Card>
      {r.output && <RunOutput output={r.output} />}
    </>
  );
}

function RunOutput({ output }: { output: NonNullable<AgentRun['output']> }) {
  return (
    <Card title="Output" testid="run-output">
      {output.text && (
        <pre class="page-text" data-testid="run-output-text">
          {output.text}
        </pre>
      )}
      {output.structured !== undefined && output.structured !== null && (
        <>
          <h3>Structured output</h3>
          <pre>{json(output.structured)}</pre>
        </>
      )}
      {output.grounding && output.grounding.length > 0 && (
        <>
          <h3>Sources</h3>
          <ul class="plain-list">
            {output.grounding.flatMap((g, i) =>
              (Array.isArray(g.citations) ? (g.citations as { url?: unknown; title?: unknown }[]) : []).map((c, j) => (
                <li key={`${i}-${j}`}>
                  <ExternalLink url={c.url}>{String(c.title || c.url)}</ExternalLink>
                  {typeof g.field === 'string' && <span class="muted small"> ({g.field})</span>}
                </li>
              )),
            )}
          </ul>
        </>
      )}
    </Card>
  );
}
