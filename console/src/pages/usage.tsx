/**
 * Usage (admin:team): requests, spend and latency per day, by key and by operation, from
 * `/console/api/usage/series`, as charts, a table of the same rows, and a CSV download of that table.
 */
import { useMemo, useState } from 'preact/hooks';
import { api } from '../lib/api';
import type { Team } from '../lib/accounts';
import { count, dollars, duration, utcDay } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { hasScope } from '../lib/session';
import {
  byKey,
  byOperation,
  daysBetween,
  perDay,
  totals,
  usageCsv,
  type GroupTotal,
  type UsageRow,
  type UsageSeries,
} from '../lib/usage';
import { BarChart, ColumnChart, LineChart } from '../components/chart';
import { SelectField, TextField } from '../components/fields';
import { Card, ErrorNote, Loading, PageHeader, TableWrap } from '../components/ui';
import type { PageProps } from '../pages';

const DAY = 86_400_000;
const shortDay = (day: string) => day.slice(5);

export function UsagePage({ session }: PageProps) {
  const admin = hasScope(session.key.scopes, 'admin');
  const today = utcDay(new Date());
  const [from, setFrom] = useState(utcDay(new Date(Date.now() - 29 * DAY)));
  const [to, setTo] = useState(today);
  const [teamId, setTeamId] = useState('');
  const [range, setRange] = useState({ from, to, teamId });
  const teams = useLoad(() => (admin ? api<{ data: Team[] }>('/admin/teams') : Promise.resolve({ data: [] })), [admin]);
  const series = useLoad(() => {
    const query = new URLSearchParams({
      from: range.from,
      to: range.to,
      ...(range.teamId && { teamId: range.teamId }),
    });
    return api<UsageSeries>(`/console/api/usage/series?${query.toString()}`);
  }, [range.from, range.to, range.teamId]);

  return (
    <>
      <PageHeader title="Usage">Requests, spend and latency per day, key and operation (UTC days).</PageHeader>
      <Card>
        <form
          class="inline-form"
          data-testid="usage-range"
          onSubmit={(e) => {
            e.preventDefault();
            setRange({ from, to, teamId });
          }}
        >
          <TextField label="From" type="date" value={from} onValue={setFrom} required testid="usage-from" />
          <TextField label="To" type="date" value={to} onValue={setTo} required testid="usage-to" />
          {admin && (
            <SelectField
              label="Team"
              value={teamId}
              onValue={setTeamId}
              options={[['', 'every team'], ...(teams.data?.data ?? []).map((t) => [t.id, t.name] as const)]}
              testid="usage-team"
            />
          )}
          <button type="submit" data-testid="usage-apply">
            Show
          </button>
        </form>
      </Card>
      <ErrorNote error={series.error} />
      {series.loading && !series.data && <Loading what="usage" />}
      {series.data && <UsageView series={series.data} />}
    </>
  );
}

function UsageView({ series }: { series: UsageSeries }) {
  const days = useMemo(() => daysBetween(series.from, series.to), [series]);
  const daily = useMemo(() => perDay(series.data, days), [series, days]);
  const keys = useMemo(() => byKey(series.data).slice(0, 15), [series]);
  const operations = useMemo(() => byOperation(series.data), [series]);
  const sum = totals(series.data);
  // the table, and its CSV, newest day first
  const rows = useMemo(() => [...series.data].sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0)), [series]);
  const download = () => {
    const blob = new Blob([usageCsv(rows)], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `trawl-usage-${series.from}-${series.to}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <>
      <div class="stats" data-testid="usage-totals">
        <div class="stat">
          <span class="stat-label">Requests</span>
          <span class="stat-value" data-testid="usage-total-requests">
            {count(sum.requests)}
          </span>
        </div>
        <div class="stat">
          <span class="stat-label">Spent</span>
          <span class="stat-value" data-testid="usage-total-spent">
            {dollars(sum.spent)}
          </span>
        </div>
        <div class="stat">
          <span class="stat-label">Period</span>
          <span class="stat-value small-value">
            {series.from} to {series.to}
          </span>
        </div>
      </div>
      <Card title="Per day" testid="usage-daily">
        <div class="grid-2">
          <ColumnChart
            title="Requests per day"
            labels={days}
            values={daily.map((d) => d.requests)}
            format={count}
            shortLabel={shortDay}
            testid="chart-requests"
          />
          <ColumnChart
            title="Spend per day"
            labels={days}
            values={daily.map((d) => d.spent)}
            format={dollars}
            shortLabel={shortDay}
            testid="chart-spend"
          />
        </div>
        <LineChart
          title="Latency per day (p50 and p95, weighted by requests)"
          labels={days}
          series={[
            { name: 'p50', values: daily.map((d) => d.p50Ms) },
            { name: 'p95', values: daily.map((d) => d.p95Ms), dashed: true },
          ]}
          format={duration}
          shortLabel={shortDay}
          testid="chart-latency"
        />
      </Card>
      <Breakdown keys={keys} operations={operations} />
      <Card
        title="Every row"
        testid="usage-table-card"
        actions={
          <button type="button" class="secondary small" onClick={download} data-testid="usage-csv">
            Download CSV
          </button>
        }
      >
        <DayTotals daily={daily} />
        <UsageTable rows={rows} />
      </Card>
    </>
  );
}

/** Requests or spend by key and by operation, the measure chosen by the reader. */
function Breakdown(props: { keys: GroupTotal[]; operations: GroupTotal[] }) {
  const [measure, setMeasure] = useState<'requests' | 'spent'>('requests');
  const word = measure === 'requests' ? 'Requests' : 'Spend';
  const format = measure === 'requests' ? count : dollars;
  const chart = (title: string, groups: GroupTotal[], testid: string) =>
    groups.length === 0 ? (
      <p class="muted">No requests.</p>
    ) : (
      <BarChart
        title={title}
        labels={groups.map((g) => g.label)}
        values={groups.map((g) => g[measure])}
        format={format}
        testid={testid}
      />
    );
  return (
    <Card
      title="By key and by operation"
      testid="usage-breakdown"
      actions={
        <SelectField
          label="Measure"
          value={measure}
          onValue={(v) => setMeasure(v === 'spent' ? 'spent' : 'requests')}
          options={[
            ['requests', 'requests'],
            ['spent', 'spend'],
          ]}
          testid="usage-measure"
        />
      }
    >
      <div class="grid-2">
        {chart(`${word} by key`, props.keys, 'chart-by-key')}
        {chart(`${word} by operation`, props.operations, 'chart-by-operation')}
      </div>
    </Card>
  );
}

/** The per-day totals, each in an element tests can read. */
function DayTotals({ daily }: { daily: ReturnType<typeof perDay> }) {
  const active = daily.filter((d) => d.requests > 0);
  if (active.length === 0) return <p class="muted">No requests in this period.</p>;
  return (
    <details>
      <summary>Totals per day ({active.length} days with requests)</summary>
      <table class="data compact" data-testid="usage-day-totals">
        <thead>
          <tr>
            <th scope="col">Day</th>
            <MeasureHeads />
          </tr>
        </thead>
        <tbody>
          {active.map((d) => (
            <tr key={d.day} data-day={d.day}>
              <th scope="row">{d.day}</th>
              <td class="num" data-testid={`usage-day-requests-${d.day}`}>
                {count(d.requests)}
              </td>
              <td class="num" data-testid={`usage-day-spent-${d.day}`}>
                {dollars(d.spent)}
              </td>
              <td class="num">{duration(d.p50Ms)}</td>
              <td class="num">{duration(d.p95Ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** The header cells of the four measures every usage table shows, in this order. */
function MeasureHeads() {
  return (
    <>
      {['Requests', 'Spent', 'p50', 'p95'].map((name) => (
        <th key={name} scope="col" class="num">
          {name}
        </th>
      ))}
    </>
  );
}

function UsageTable({ rows }: { rows: UsageRow[] }) {
  if (rows.length === 0) return null;
  return (
    <TableWrap label="Usage rows">
      <table class="data" data-testid="usage-table">
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Team</th>
            <th scope="col">Key</th>
            <th scope="col">Operation</th>
            <MeasureHeads />
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} data-testid="usage-row">
              <th scope="row" class="nowrap">
                {r.day}
              </th>
              <td>{r.team}</td>
              <td>{r.keyName ?? r.keyId ?? <span class="muted">whole team</span>}</td>
              <td>{r.operation}</td>
              <td class="num">{count(r.requests)}</td>
              <td class="num">{dollars(r.spent)}</td>
              <td class="num">{duration(r.p50Ms)}</td>
              <td class="num">{duration(r.p95Ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
