/**
 * Overview: who is signed in and what their key may do; for an admin key also what `GET /status`
 * (trawl doctor) knows: configured parts with the next step for each missing one, the index, replicas
 * and their lag, and what is broken now.
 */
import { api } from '../lib/api';
import { count, duration } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { hasScope, SCOPES } from '../lib/session';
import { checksOf, type StatusReport } from '../lib/status';
import { Badge, Card, ErrorNote, Loading, PageHeader, TableWrap, Time } from '../components/ui';
import type { PageProps } from '../pages';

export function OverviewPage({ session }: PageProps) {
  const admin = hasScope(session.key.scopes, 'admin');
  return (
    <>
      <PageHeader title="Overview">
        {admin ? 'The state of this Trawl installation, as trawl doctor reports it.' : 'Your key and what it may do.'}
      </PageHeader>
      {admin && <Status />}
      <Identity session={session} />
    </>
  );
}

function Identity({ session }: Pick<PageProps, 'session'>) {
  return (
    <Card title="Signed in" testid="identity">
      <dl class="facts">
        <dt>Key</dt>
        <dd>
          {session.key.name} <code class="muted">{session.key.id}</code>
        </dd>
        <dt>Team</dt>
        <dd>{session.team.name}</dd>
        <dt>Session ends</dt>
        <dd>
          <Time iso={session.expiresAt} />
        </dd>
      </dl>
      <h3>What this key may do</h3>
      <ul class="scopes" data-testid="scopes">
        {SCOPES.map(([scope, what]) => {
          const held = hasScope(session.key.scopes, scope);
          return (
            <li key={scope} class={held ? 'held' : 'not-held'}>
              <code>{scope}</code> <span class="muted">{held ? '(held)' : '(not held)'}</span> — {what}
            </li>
          );
        })}
      </ul>
    </Card>
  );
}

function Status() {
  const status = useLoad(() => api<StatusReport>('/status'), []);
  if (status.loading && !status.data) return <Loading what="the status report" />;
  if (status.error) return <ErrorNote error={status.error} />;
  const report = status.data!;
  return (
    <>
      <Problems report={report} />
      <div class="grid-2">
        <Card title="Index" testid="overview-index">
          <dl class="facts">
            <dt>Documents</dt>
            <dd data-testid="index-documents">{count(report.index.documents)}</dd>
            <dt>Searchable</dt>
            <dd>{count(report.index.searchable)}</dd>
            <dt>Embedded chunks</dt>
            <dd>{count(report.index.embeddedChunks)}</dd>
            <dt>Code sources</dt>
            <dd>
              {count(report.index.code.sources)} ({count(report.index.code.files)} files,{' '}
              {count(report.index.code.chunks)} chunks)
            </dd>
            <dt>Store</dt>
            <dd>
              {report.store.backend} {report.store.version}
            </dd>
            <dt>Trawl</dt>
            <dd>{report.version}</dd>
          </dl>
        </Card>
        <Card title="Collections">
          <Collections report={report} />
        </Card>
      </div>
      <Checks report={report} />
      <Replicas report={report} />
      <p class="muted small">
        Checked <Time iso={report.checkedAt} />.{' '}
        <button type="button" class="link" onClick={status.reload}>
          Check again
        </button>
      </p>
    </>
  );
}

/** Documents per collection (at most 50, largest first). */
export function Collections({ report }: { report: StatusReport }) {
  if (report.index.collections.length === 0) return <p class="muted">No documents yet.</p>;
  return (
    <table class="data" data-testid="collections">
      <thead>
        <tr>
          <th scope="col">Collection</th>
          <th scope="col" class="num">
            Documents
          </th>
        </tr>
      </thead>
      <tbody>
        {report.index.collections.map((c) => (
          <tr key={c.name ?? ''}>
            <th scope="row">{c.name ?? <span class="muted">(web pages)</span>}</th>
            <td class="num">{count(c.documents)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Broken parts and notes with their fixes, and the data directory's or store's problem. */
function Problems({ report }: { report: StatusReport }) {
  const problems = [report.dataDir.problem, report.dataDir.databaseProblem, report.store.problem].filter(Boolean);
  if (report.nextSteps.length === 0 && problems.length === 0) {
    return <p class="note ok">Everything configured works; nothing to do.</p>;
  }
  return (
    <Card title={report.ok ? 'Next steps' : 'Problems and next steps'} testid="next-steps">
      <ul class="steps">
        {problems.map((p) => (
          <li key={p}>
            <Badge status="broken" /> {p}
          </li>
        ))}
        {report.nextSteps.map((step, i) => (
          <li key={i}>
            <Badge status={step.level} /> {step.message}
            {step.fix && (
              <pre class="fix">
                <code>{step.fix}</code>
              </pre>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}

function Checks({ report }: { report: StatusReport }) {
  return (
    <Card title="Configured parts" testid="checks">
      <TableWrap label="Configured parts">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Part</th>
              <th scope="col">State</th>
              <th scope="col">What the check found</th>
              <th scope="col" class="num">
                Took
              </th>
            </tr>
          </thead>
          <tbody>
            {checksOf(report).map((check, i) => (
              <tr key={`${check.name}-${i}`}>
                <th scope="row">{check.name}</th>
                <td>
                  <Badge status={check.state} />
                </td>
                <td>
                  {check.detail}
                  {check.url && <div class="muted small">{check.url}</div>}
                </td>
                <td class="num">{duration(check.ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </Card>
  );
}

function Replicas({ report }: { report: StatusReport }) {
  const replicas = report.store.replicas;
  if (!replicas) return null;
  return (
    <Card title="Replicas" testid="replicas">
      {replicas.length === 0 ? (
        <p class="muted">No replica seen in the last five minutes.</p>
      ) : (
        <TableWrap label="Replicas">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Replica</th>
                <th scope="col">Host</th>
                <th scope="col">Version</th>
                <th scope="col">Last seen</th>
                <th scope="col" class="num">
                  Documents behind
                </th>
                <th scope="col" class="num">
                  Behind for
                </th>
              </tr>
            </thead>
            <tbody>
              {replicas.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <code>{r.id}</code>
                  </th>
                  <td>
                    {r.host} (pid {r.pid})
                  </td>
                  <td>{r.version}</td>
                  <td>
                    <Time iso={r.seenAt} />
                  </td>
                  <td class="num">{count(r.behind)}</td>
                  <td class="num">{duration(r.lagMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Card>
  );
}
