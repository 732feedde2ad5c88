/**
 * Monitors (scope `monitors`): the list of the key's team's monitors and a form to create one; a
 * monitor's page (`#/monitors/<id>`) edits it and shows its runs and webhook deliveries.
 */
import { hrefOf } from '../lib/router';
import { usePaged } from '../lib/hooks';
import type { Monitor } from '../lib/monitors';
import { Badge, Card, ErrorNote, Loading, PageHeader, Pager, TableWrap, Time } from '../components/ui';
import type { PageProps } from '../pages';
import { MonitorForm } from './monitor-form';
import { MonitorDetail } from './monitor-detail';

export function MonitorsPage({ param }: PageProps) {
  if (param) return <MonitorDetail id={param} />;
  return <MonitorList />;
}

function MonitorList() {
  const page = usePaged<Monitor>('/monitors');
  return (
    <>
      <PageHeader title="Monitors">Searches run on a schedule, their new results posted to a webhook.</PageHeader>
      <Card title="Monitors" testid="monitors">
        <ErrorNote error={page.error} />
        {page.loading && !page.data && <Loading what="the monitors" />}
        {page.data && page.data.data.length === 0 && <p class="muted">No monitor yet: create one below.</p>}
        {page.data && page.data.data.length > 0 && (
          <TableWrap label="Monitors">
            <table class="data" data-testid="monitors-table">
              <thead>
                <tr>
                  <th scope="col">Monitor</th>
                  <th scope="col">Status</th>
                  <th scope="col">Query</th>
                  <th scope="col">Runs every</th>
                  <th scope="col">Next run</th>
                </tr>
              </thead>
              <tbody>
                {page.data.data.map((m) => (
                  <tr key={m.id} data-testid="monitor-row" data-monitor-id={m.id}>
                    <th scope="row">
                      <a href={hrefOf('monitors', m.id)}>{m.name || m.id}</a>
                    </th>
                    <td>
                      <Badge status={m.status} />
                    </td>
                    <td class="break">{String(m.search.query ?? '')}</td>
                    <td>{m.trigger?.period ?? <span class="muted">by hand</span>}</td>
                    <td>
                      <Time iso={m.nextRunAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
        <Pager label="Monitors" of={page} />
      </Card>
      <Card title="Create a monitor" testid="create-monitor">
        <MonitorForm onSaved={() => page.restart()} />
      </Card>
    </>
  );
}
