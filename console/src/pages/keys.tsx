/**
 * Keys and teams (admin:team): the team's keys with scopes, budget and rate; a form that creates one
 * (shown once, with a copy button); revoking with a confirm step; and, for `admin`, teams and credits.
 */
import { useState } from 'preact/hooks';
import { api, post } from '../lib/api';
import type { ApiKey, CreatedApiKey, Team } from '../lib/accounts';
import { dollars } from '../lib/format';
import { useLoad } from '../lib/hooks';
import { hasScope, SCOPES } from '../lib/session';
import { CheckField, FieldGroup, numberOf, SelectField, TextField } from '../components/fields';
import {
  Badge,
  Card,
  ConfirmButton,
  CopyButton,
  ErrorNote,
  Loading,
  PageHeader,
  TableWrap,
  Time,
} from '../components/ui';
import type { PageProps } from '../pages';
import { TeamsCard } from './teams';

const DEFAULT_SCOPES = ['search', 'contents', 'context', 'monitors', 'agent'];

export function KeysPage({ session }: PageProps) {
  const admin = hasScope(session.key.scopes, 'admin');
  const keys = useLoad(() => api<{ data: ApiKey[] }>('/admin/keys'), []);
  const teams = useLoad(() => api<{ data: Team[] }>('/admin/teams'), []);
  const teamName = (id: string) => teams.data?.data.find((t) => t.id === id)?.name ?? id;
  return (
    <>
      <PageHeader title="Keys and teams">
        {admin ? 'Keys of every team, the teams and their credits.' : `Keys of the team ${session.team.name}.`}
      </PageHeader>
      <CreateKey admin={admin} teams={teams.data?.data ?? []} ownTeam={session.team.id} onCreated={keys.reload} />
      <Card title="Keys" testid="keys">
        <ErrorNote error={keys.error} />
        {keys.loading && !keys.data && <Loading what="the keys" />}
        {keys.data && (
          <KeyTable keys={keys.data.data} teamName={teamName} selfId={session.key.id} onChanged={keys.reload} />
        )}
      </Card>
      <TeamsCard admin={admin} teams={teams} />
    </>
  );
}

function KeyTable(props: { keys: ApiKey[]; teamName: (id: string) => string; selfId: string; onChanged: () => void }) {
  const [showRevoked, setShowRevoked] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const shown = props.keys.filter((k) => showRevoked || !k.revokedAt);
  const revoke = async (key: ApiKey) => {
    setError(null);
    try {
      await api(`/admin/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      props.onChanged();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <CheckField label="Show revoked keys" checked={showRevoked} onChecked={setShowRevoked} />
      <ErrorNote error={error} />
      <TableWrap label="Keys">
        <table class="data" data-testid="keys-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Team</th>
              <th scope="col">Scopes</th>
              <th scope="col">Budget</th>
              <th scope="col" class="num">
                Rate
              </th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="offscreen">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((k) => (
              <tr key={k.id} data-testid="key-row" data-key-id={k.id}>
                <th scope="row">
                  {k.name} {k.id === props.selfId && <span class="muted small">(this key)</span>}
                  <div class="muted small">
                    <code>{k.id}</code>
                  </div>
                </th>
                <td>{props.teamName(k.teamId)}</td>
                <td class="small">{k.scopes === null ? 'every scope (older key)' : k.scopes.join(', ')}</td>
                <td>
                  {k.budget ? `${dollars(k.budget.amount)} a ${k.budget.period}` : <span class="muted">none</span>}
                </td>
                <td class="num">{k.qps === null ? <span class="muted">default</span> : `${k.qps}/s`}</td>
                <td>
                  <Time iso={k.lastUsedAt} />
                </td>
                <td>
                  {k.revokedAt ? (
                    <Badge status="revoked" />
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel={`Revoke ${k.name}`}
                      onConfirm={() => revoke(k)}
                      testid="key-revoke"
                    />
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

function CreateKey(props: { admin: boolean; teams: Team[]; ownTeam: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(DEFAULT_SCOPES);
  const [team, setTeam] = useState('');
  const [budget, setBudget] = useState('');
  const [period, setPeriod] = useState('month');
  const [qps, setQps] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (scope: string, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setCreated(null);
    const amount = numberOf(budget);
    const rate = numberOf(qps);
    try {
      const key = await post<CreatedApiKey>('/admin/keys', {
        name: name.trim(),
        scopes,
        ...(props.admin && team && { team }),
        ...(amount !== undefined && { budget: { amount, period } }),
        ...(rate !== undefined && { qps: rate }),
      });
      setCreated(key);
      setName('');
      props.onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Create a key" testid="create-key">
      <form class="form-grid" onSubmit={(e) => void submit(e)} data-testid="create-key-form">
        <TextField label="Name" value={name} onValue={setName} required testid="new-key-name" />
        {props.admin && (
          <SelectField
            label="Team"
            value={team || props.ownTeam}
            onValue={setTeam}
            options={props.teams.map((t) => [t.id, t.name] as const)}
            testid="new-key-team"
          />
        )}
        <TextField
          label="Budget (dollars)"
          type="number"
          min={0}
          step="any"
          value={budget}
          onValue={setBudget}
          hint="Empty: no budget."
        />
        <SelectField
          label="Budget period"
          value={period}
          onValue={setPeriod}
          options={[
            ['day', 'a day'],
            ['month', 'a month'],
          ]}
        />
        <TextField
          label="Requests per second"
          type="number"
          min={0}
          step="any"
          value={qps}
          onValue={setQps}
          hint="Empty: the server's default."
        />
        <FieldGroup legend="Scopes" testid="new-key-scopes">
          {SCOPES.map(([scope, what]) => (
            <CheckField
              key={scope}
              label={scope}
              hint={what}
              checked={scopes.includes(scope)}
              onChecked={(on) => toggle(scope, on)}
              testid={`scope-${scope}`}
            />
          ))}
        </FieldGroup>
        <div class="form-actions">
          <button type="submit" disabled={busy || scopes.length === 0} data-testid="create-key-submit">
            Create the key
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {created && <CreatedKey created={created} />}
    </Card>
  );
}

/** The new key, shown this once. */
function CreatedKey({ created }: { created: CreatedApiKey }) {
  return (
    <div class="created-key" role="status" data-testid="created-key-box">
      <p>
        <strong>Copy the key {created.name} now: it is not shown again.</strong> Anyone holding it can call Trawl with
        its scopes.
      </p>
      <p class="key-line">
        <code data-testid="created-key">{created.key}</code>{' '}
        <CopyButton text={created.key} label="Copy the key" testid="copy-created-key" />
      </p>
    </div>
  );
}
