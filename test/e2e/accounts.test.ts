/**
 * Accounts end to end through the real HTTP door: scopes, blocked teams, credits spent by concurrent
 * requests (never overspent), key and team budgets, the hipaa gate, zero retention, the admin routes,
 * and monitor runs that fail for want of credits.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { startTestServer, type TestServer, callJson } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
let receiver: Receiver;
let model: ModelServer;
const logLines: string[] = [];

const call = (method: string, path: string, key: string, body?: unknown) => callJson(t.url, key, method, path, body);
const context = (key: string) => call('POST', '/context', key, { query: 'undici pool', tokensNum: 100 });
const teams = () => t.app.services.accounts.teams;
const keyIn = async (team: string, extra: object = {}) =>
  (
    await t.app.services.keys.create(
      `k-${team}-${Math.random()}`,
      { teamId: await teams().idOf(team, null), ...extra },
      null,
    )
  ).key;
const dollars = (n: number) => Math.round(n * 1e6);

beforeAll(async () => {
  receiver = await startReceiver();
  // a model that refuses every summary: the warning about it names the page, unless its team keeps nothing
  model = await startModelServer({ reply: { status: 400 } });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  t = await startTestServer(
    { allowInsecureWebhooks: true, modelBaseUrl: model.baseUrl, model: 'test-model' },
    { logger: createLogger('info', sink) },
  );
  await t.app.services.documents.upsert(storedDoc('https://zdr.example.com/secret-page', 'Private topic', 'Text about a private topic.'), new Date().toISOString()); // prettier-ignore
  await t.app.services.documents.upsert(storedDoc('https://open.example.com/public-page', 'Public topic', 'Text about a public topic.'), new Date().toISOString()); // prettier-ignore
});
afterAll(async () => {
  await t.close();
  await receiver.close();
  await model.close();
});

describe('scopes and blocked teams', () => {
  it('refuses calls outside a key’s scopes with 403 INSUFFICIENT_SCOPE', async () => {
    const key = (await t.app.services.keys.create('search only', { scopes: ['search'] }, null)).key;
    expect((await call('POST', '/search', key, { query: 'x', type: 'instant' })).status).toBe(200);
    const refused = await context(key);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    expect(refused.body.error).toMatch(/lacks the "context" scope/);
    const monitors = await call('GET', '/monitors', key);
    expect(monitors.status).toBe(403);
    expect(Object.keys(monitors.body)).toEqual(['error']);
    expect((await call('GET', '/admin/teams', key)).status).toBe(403);
  });

  it('refuses every call of a blocked team’s keys with 403 TEAM_BLOCKED, at once, until unblocked', async () => {
    await teams().create('blockme', {}, null);
    const key = await keyIn('blockme');
    expect((await context(key)).status).toBe(200);
    await teams().block('blockme', null);
    const refused = await context(key);
    expect(refused.status).toBe(403);
    expect(refused.body.tag).toBe('TEAM_BLOCKED');
    await teams().unblock('blockme', null);
    expect((await context(key)).status).toBe(200);
  });
});

describe('credits and budgets', () => {
  it('never spends more than the credits, however many requests race for them', async () => {
    await teams().create('racers', { credits: dollars(0.05) }, null); // ten /context calls at $0.005
    const key = await keyIn('racers');
    const results = await Promise.all(Array.from({ length: 40 }, () => context(key)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(30);
    expect(refused.every((r) => r.body.tag === 'NO_MORE_CREDITS')).toBe(true);
    expect(refused[0]!.body.error).toMatch(/out of credits/);
    expect((await teams().get('racers', null)).credits).toBe(0);
    const spent = (await teams().usage(Date.now(), null)).find((l) => l.team === 'racers' && l.keyId === null)!;
    expect(spent).toMatchObject({ requests: 10, spent: 0.05 });
  });

  it('stops a key at its budget (API_KEY_BUDGET_EXCEEDED) and a team at its own (TEAM_BUDGET_EXCEEDED)', async () => {
    const capped = (
      await t.app.services.keys.create('capped', { budget: { micros: dollars(0.01), period: 'day' } }, null)
    ).key;
    expect((await context(capped)).status).toBe(200);
    expect((await context(capped)).status).toBe(200);
    const overKey = await context(capped);
    expect(overKey.status).toBe(402);
    expect(overKey.body.tag).toBe('API_KEY_BUDGET_EXCEEDED');

    await teams().create('budgeted', { budget: { micros: dollars(0.015), period: 'month' } }, null);
    const [a, b] = [await keyIn('budgeted'), await keyIn('budgeted')];
    expect((await context(a)).status).toBe(200);
    expect((await context(b)).status).toBe(200);
    expect((await context(a)).status).toBe(200);
    const overTeam = await context(b);
    expect(overTeam.status).toBe(402);
    expect(overTeam.body.tag).toBe('TEAM_BUDGET_EXCEEDED');
  });

  it('fails a monitor run with insufficient_credits when its team has none left', async () => {
    await teams().create('broke', { credits: 0 }, null);
    const key = await keyIn('broke');
    const created = await call('POST', '/monitors', key, { search: { query: 'anything' }, webhook: { url: receiver.url } }); // prettier-ignore
    expect(created.status).toBe(201); // making a monitor costs nothing
    await call('POST', `/monitors/${created.body.id}/trigger`, key);
    await t.app.services.monitors.engine.drain();
    const runs = await call('GET', `/monitors/${created.body.id}/runs`, key);
    expect(runs.body.data[0]).toMatchObject({ status: 'failed', failReason: 'insufficient_credits' });
  });
});

describe('compliance and retention modes', () => {
  it('lets only enterprise teams use compliance "hipaa", and then only cache-only instant or fast searches', async () => {
    const plain = await call('POST', '/search', t.key, { query: 'x', type: 'fast', compliance: 'hipaa' });
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatch(/enterprise/);
    await teams().create('hospital', { enterprise: true }, null);
    const key = await keyIn('hospital');
    expect((await call('POST', '/search', key, { query: 'x', type: 'fast', compliance: 'hipaa' })).status).toBe(200);
    const cases: [Json, RegExp][] = [
      [{ type: 'deep' }, /type/],
      [{ type: 'fast', contents: { summary: true } }, /summar/],
      [{ type: 'fast', contents: { livecrawl: 'always' } }, /livecrawl|cache-only/],
    ];
    for (const [extra, message] of cases) {
      const res = await call('POST', '/search', key, { query: 'x', compliance: 'hipaa', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const page = { urls: ['https://open.example.com/public-page'], compliance: 'hipaa' };
    expect((await call('POST', '/contents', key, page)).status).toBe(200);
    expect((await call('POST', '/contents', key, { ...page, summary: true })).body.error).toMatch(/summary: summaries are not supported/); // prettier-ignore
    expect((await call('POST', '/contents', key, { ...page, livecrawl: 'always' })).body.error).toMatch(/livecrawl: .*cache-only/); // prettier-ignore
    expect((await call('POST', '/contents', key, { ...page, maxAgeHours: 0 })).status).toBe(400);
    expect((await call('POST', '/contents', t.key, page)).status).toBe(403); // not an enterprise team
  });

  it('keeps no content of a zero-retention team: no monitors, and no URLs or queries in the logs', async () => {
    await teams().create('private', { zeroRetention: true }, null);
    const key = await keyIn('private');
    const monitor = await call('POST', '/monitors', key, { search: { query: 'x' }, webhook: { url: receiver.url } });
    expect(monitor.status).toBe(403);
    expect(monitor.body.error).toMatch(/zero data retention/);

    logLines.length = 0;
    const res = await call('POST', '/contents', key, { urls: ['https://zdr.example.com/secret-page'], summary: true, maxAgeHours: -1 }); // prettier-ignore
    const warning = logLines.find((l) => l.includes('summary failed'));
    expect(warning, JSON.stringify(res.body)).toBeDefined();
    expect(warning).toContain('"zeroRetention":true');
    expect(logLines.join('\n')).not.toContain('secret-page');

    // the same warning for a team without zero retention names the page
    logLines.length = 0;
    await teams().create('open', {}, null);
    await call('POST', '/contents', await keyIn('open'), { urls: ['https://open.example.com/public-page'], summary: true, maxAgeHours: -1 }); // prettier-ignore
    expect(logLines.find((l) => l.includes('summary failed'))).toContain('public-page');
  });
});

describe('admin routes', () => {
  it('manages teams, keys, credits and usage over REST with an admin-scoped key', async () => {
    const admin = (await t.app.services.keys.create('ops', { scopes: ['admin'] }, null)).key;
    const team = await call('POST', '/admin/teams', admin, { name: 'viaapi', credits: 1, budget: { amount: 5, period: 'day' } }); // prettier-ignore
    expect(team.status).toBe(201);
    expect(team.body).toMatchObject({
      name: 'viaapi',
      credits: 1,
      budget: { amount: 5, period: 'day' },
      blocked: false,
    });
    const made = await call('POST', '/admin/keys', admin, {
      name: 'worker',
      team: 'viaapi',
      scopes: ['context'],
      qps: 0,
    });
    expect(made.status).toBe(201);
    expect(made.body.key).toMatch(/^trawl_/);
    expect((await context(made.body.key as string)).status).toBe(200);
    const credited = await call('POST', '/admin/teams/viaapi/credits', admin, { amount: 2.5 });
    expect(credited.body.credits).toBeCloseTo(3.495, 6);
    const usage = await call('GET', '/admin/usage?days=1', admin);
    const line = (usage.body.data as Json[]).find((l) => l.keyId === made.body.id);
    expect(line).toMatchObject({ team: 'viaapi', requests: 1, spent: 0.005, byOperation: { context: 0.005 } });
    const blocked = await call('PATCH', '/admin/teams/viaapi', admin, { blocked: true });
    expect(blocked.body.blocked).toBe(true);
    expect((await context(made.body.key as string)).body.tag).toBe('TEAM_BLOCKED');
    const revoked = await call('DELETE', `/admin/keys/${made.body.id}`, admin);
    expect(revoked.body.revokedAt).toBeTruthy();
    expect((await call('GET', '/admin/keys', admin)).body.data.some((k: Json) => k.id === made.body.id)).toBe(true);
    const bad = await call('POST', '/admin/teams', admin, { name: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/name/);
  });
});

describe('the price table', () => {
  it('charges what TRAWL_PRICES says, and refuses unknown price names at start', async () => {
    const priced = await startTestServer({ prices: '{"codeContext": 0.02, "contentsPage": 0.003}' });
    try {
      const res = await fetch(`${priced.url}/context`, {
        method: 'POST',
        headers: { 'x-api-key': priced.key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'undici pool', tokensNum: 100 }),
      });
      expect(((await res.json()) as Json).costDollars).toEqual({ total: 0.02, search: { neural: 0.02 } });
      const spent = (await priced.app.services.accounts.teams.usage(Date.now(), null)).find((l) => l.keyId === null)!;
      expect(spent.byOperation).toEqual({ context: 0.02 });
    } finally {
      await priced.close();
    }
    await expect(startTestServer({ prices: '{"searchh": 1}' })).rejects.toThrow(/--prices.*searchh: unknown field/);
  });
});
