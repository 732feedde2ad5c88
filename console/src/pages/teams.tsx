/** The teams of the keys page: flags, credits and budget, and the "add credits" form for `admin`. */
import { useState } from 'preact/hooks';
import { post } from '../lib/api';
import type { Team } from '../lib/accounts';
import { dollars } from '../lib/format';
import type { Loaded } from '../lib/hooks';
import { SelectField, TextField, numberOf } from '../components/fields';
import { Badge, Card, ErrorNote, Loading, Notice, TableWrap } from '../components/ui';

export function TeamsCard(props: { admin: boolean; teams: Loaded<{ data: Team[] }> }) {
  const { teams } = props;
  return (
    <Card title={props.admin ? 'Teams' : 'Team'} testid="teams">
      <ErrorNote error={teams.error} />
      {teams.loading && !teams.data && <Loading what="the teams" />}
      {teams.data && (
        <TableWrap label="Teams">
          <table class="data" data-testid="teams-table">
            <thead>
              <tr>
                <th scope="col">Team</th>
                <th scope="col" class="num">
                  Credits left
                </th>
                <th scope="col">Budget</th>
                <th scope="col">Flags</th>
              </tr>
            </thead>
            <tbody>
              {teams.data.data.map((t) => (
                <tr key={t.id} data-testid="team-row" data-team-id={t.id}>
                  <th scope="row">
                    {t.name}
                    <div class="muted small">
                      <code>{t.id}</code>
                    </div>
                  </th>
                  <td class="num" data-testid="team-credits">
                    {t.credits === null ? <span class="muted">no limit</span> : dollars(t.credits)}
                  </td>
                  <td>
                    {t.budget ? `${dollars(t.budget.amount)} a ${t.budget.period}` : <span class="muted">none</span>}
                  </td>
                  <td>
                    {t.blocked && <Badge status="blocked" />} {t.enterprise && <Badge status="enterprise" />}{' '}
                    {t.zeroRetention && <Badge status="zero retention" />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {props.admin && teams.data && <AddCredits teams={teams.data.data} onAdded={teams.reload} />}
    </Card>
  );
}

function AddCredits(props: { teams: Team[]; onAdded: () => void }) {
  const [team, setTeam] = useState('');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Team | null>(null);
  const chosen = team || props.teams[0]?.id || '';
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const updated = await post<Team>(`/admin/teams/${encodeURIComponent(chosen)}/credits`, {
        amount: numberOf(amount),
      });
      setDone(updated);
      setAmount('');
      props.onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="inline-form" onSubmit={(e) => void submit(e)} data-testid="add-credits-form">
      <h3>Add credits</h3>
      <SelectField
        label="Team"
        value={chosen}
        onValue={setTeam}
        options={props.teams.map((t) => [t.id, t.name] as const)}
        testid="credits-team"
      />
      <TextField
        label="Amount (dollars)"
        type="number"
        min={0.01}
        step="any"
        value={amount}
        onValue={setAmount}
        required
        testid="credits-amount"
      />
      <button type="submit" data-testid="add-credits-submit">
        Add credits
      </button>
      <ErrorNote error={error} />
      {done && <Notice>{`${done.name} now has ${dollars(done.credits)} of credits.`}</Notice>}
    </form>
  );
}
