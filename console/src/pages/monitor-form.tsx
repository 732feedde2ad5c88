/**
 * Create or edit a monitor: name, query, results per run, schedule (an interval such as `6h` or `1d`;
 * empty for a monitor run by hand) and webhook URL; when editing, also active or paused.
 */
import { useState } from 'preact/hooks';
import { api, post } from '../lib/api';
import { monitorPath, type CreatedMonitor, type Monitor } from '../lib/monitors';
import { numberOf, SelectField, TextField } from '../components/fields';
import { CopyButton, ErrorNote, Notice } from '../components/ui';

export function MonitorForm(props: { monitor?: Monitor; onSaved: (monitor: Monitor) => void }) {
  const m = props.monitor;
  const [name, setName] = useState(m?.name ?? '');
  const [query, setQuery] = useState(String(m?.search.query ?? ''));
  const [num, setNum] = useState(String(m?.search.numResults ?? 10));
  const [period, setPeriod] = useState(m?.trigger?.period ?? '1d');
  const [url, setUrl] = useState(m?.webhook.url ?? '');
  const [status, setStatus] = useState<string>(m?.status === 'paused' ? 'paused' : 'active');
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    const search = { query: query.trim(), numResults: numberOf(num) ?? 10 };
    const trigger = period.trim() ? { type: 'interval', period: period.trim() } : null;
    try {
      if (m) {
        const body = { name: name.trim() || null, status, search, trigger, webhook: { url: url.trim() } };
        const updated = await api<Monitor>(monitorPath(m.id), { method: 'PATCH', body });
        setSaved(true);
        props.onSaved(updated);
      } else {
        const body = {
          ...(name.trim() && { name: name.trim() }),
          search,
          ...(trigger && { trigger }),
          webhook: { url: url.trim() },
        };
        const created = await post<CreatedMonitor>('/monitors', body);
        setSecret(created.webhookSecret);
        setName('');
        setQuery('');
        props.onSaved(created);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <form
        class="form-grid"
        onSubmit={(e) => void submit(e)}
        data-testid={m ? 'monitor-edit-form' : 'monitor-create-form'}
      >
        <TextField label="Name" value={name} onValue={setName} testid="monitor-name" />
        <TextField label="Query" value={query} onValue={setQuery} required testid="monitor-query" wide />
        <TextField label="Results per run" type="number" min={1} max={100} value={num} onValue={setNum} />
        <TextField
          label="Run every"
          value={period}
          onValue={setPeriod}
          hint="An interval in hours or days: 6h, 1d. Empty: only when run by hand."
          testid="monitor-period"
        />
        <TextField
          label="Webhook URL"
          type="url"
          value={url}
          onValue={setUrl}
          required
          hint="Receives the monitor's events, signed with its secret."
          testid="monitor-webhook"
        />
        {m && (
          <SelectField
            label="Status"
            value={status}
            onValue={setStatus}
            options={[
              ['active', 'active'],
              ['paused', 'paused'],
            ]}
            testid="monitor-status"
          />
        )}
        <div class="form-actions">
          <button type="submit" disabled={busy} data-testid="monitor-save">
            {m ? 'Save changes' : 'Create the monitor'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {saved && <Notice>Saved.</Notice>}
      {secret && (
        <div class="created-key" role="status" data-testid="monitor-secret-box">
          <p>
            <strong>The webhook secret is shown only now.</strong> The receiver checks each delivery's signature with
            it.
          </p>
          <p class="key-line">
            <code data-testid="monitor-secret">{secret}</code> <CopyButton text={secret} label="Copy the secret" />
          </p>
        </div>
      )}
    </>
  );
}
