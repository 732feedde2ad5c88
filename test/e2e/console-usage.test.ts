/**
 * The console's usage series (GET /console/api/usage/series) through the real HTTP door, on SQLite and
 * PostgreSQL: after real metered calls, its requests and dollars per key and operation add up to what
 * GET /admin/usage reports for the same days, each point carries p50/p95 latencies from the buckets the
 * meter recorded, a team admin sees its own team only (another team is 404), a key without `admin:team`
 * is 403, and a bad range is 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startServerOn } from '../helpers/backend-server.js';
import { callJson, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PAGE = 'https://docs.example.com/usage/pooling';
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe.each(BACKENDS)('the usage series on %s', (backend) => {
  let t: TestServer;
  const keys = { adminA: '', searchA: '', adminB: '' };
  const ids = { teamA: '', teamB: '', adminA: '', searchA: '' };
  const series = (key: string, query = '') => callJson(t.url, key, 'GET', `/console/api/usage/series${query}`);

  beforeAll(async () => {
    t = await startServerOn(backend);
    const { teams } = t.app.services.accounts;
    const made = (name: string, teamId: string, scopes: string[]) =>
      t.app.services.keys.create(name, { teamId, scopes: scopes as never }, null);
    const [a, b] = [await teams.create('usage-a', {}, null), await teams.create('usage-b', {}, null)];
    ids.teamA = a.id;
    ids.teamB = b.id;
    const adminA = await made('admin of A', a.id, ['search', 'contents', 'admin:team']);
    const searchA = await made('search of A', a.id, ['search']);
    keys.adminA = adminA.key;
    keys.searchA = searchA.key;
    keys.adminB = (await made('admin of B', b.id, ['search', 'admin:team'])).key;
    ids.adminA = adminA.id;
    ids.searchA = searchA.id;
    await t.app.services.documents.upsertMany(
      [storedDoc(PAGE, 'Connection pooling', 'Connection pooling keeps sockets open between requests.')],
      new Date().toISOString(),
    );
    // real metered calls: searches and a contents read by team A's keys, one search by team B's
    const search = (key: string) => callJson(t.url, key, 'POST', '/search', { query: 'connection pooling' });
    for (const key of [keys.adminA, keys.adminA, keys.adminA, keys.searchA, keys.searchA, keys.adminB]) {
      expect((await search(key)).status).toBe(200);
    }
    const contents = await callJson(t.url, keys.adminA, 'POST', '/contents', { urls: [PAGE], maxAgeHours: -1 });
    expect(contents.status).toBe(200);
  }, 60_000);
  afterAll(() => t?.close());

  it("adds up to /admin/usage's requests and dollars per key and operation, with latency", async () => {
    const usage = await callJson(t.url, keys.adminA, 'GET', '/admin/usage?days=30');
    expect(usage.status).toBe(200);
    const res = await series(keys.adminA);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: daysAgo(29), to: today() });
    const points = res.body.data as Json[];
    expect(new Set(points.map((p) => p.teamId))).toEqual(new Set([ids.teamA])); // its own team only
    const keyLines = (usage.body.data as Json[]).filter((l) => l.keyId !== null);
    expect(keyLines.map((l) => l.keyId).sort()).toEqual([ids.adminA, ids.searchA].sort());
    for (const line of keyLines) {
      const mine = points.filter((p) => p.keyId === line.keyId);
      expect(
        mine.reduce((n, p) => n + p.requests, 0),
        line.keyName,
      ).toBe(line.requests);
      expect(mine.reduce((n, p) => n + p.spent, 0)).toBeCloseTo(line.spent, 6);
      for (const [operation, dollars] of Object.entries(line.byOperation as Record<string, number>)) {
        const spent = mine.filter((p) => p.operation === operation).reduce((n, p) => n + p.spent, 0);
        expect(spent, `${line.keyName} ${operation}`).toBeCloseTo(dollars, 6);
      }
    }
    const adminSearch = points.find((p) => p.keyId === ids.adminA && p.operation === 'search')!;
    expect(adminSearch).toMatchObject({ day: today(), team: 'usage-a', keyName: 'admin of A', requests: 3 });
    for (const p of points) {
      expect(Number.isInteger(p.p50Ms) && p.p50Ms >= 1, JSON.stringify(p)).toBe(true);
      expect(p.p95Ms).toBeGreaterThanOrEqual(p.p50Ms);
    }
  });

  it("gives an operator key every team's, or the one it names; another team's admin gets 404", async () => {
    const all = await series(t.key);
    expect(new Set((all.body.data as Json[]).map((p) => p.teamId))).toEqual(new Set([ids.teamA, ids.teamB]));
    const onlyB = await series(t.key, '?teamId=usage-b');
    expect((onlyB.body.data as Json[]).map((p) => [p.team, p.requests])).toEqual([['usage-b', 1]]);
    const theirs = await series(keys.adminB, `?teamId=${ids.teamA}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.tag).toBe('NOT_FOUND');
    expect((await series(keys.adminB, `?teamId=${ids.teamB}`)).status).toBe(200);
  });

  it('refuses a key without admin:team with 403', async () => {
    const res = await series(keys.searchA);
    expect(res.status).toBe(403);
    expect(res.body.tag).toBe('INSUFFICIENT_SCOPE');
  });

  it('refuses a range that is not one, naming the field', async () => {
    const cases: [string, string][] = [
      ['?from=2026-02-30', 'from'],
      ['?from=yesterday', 'from'],
      ['?from=2026-03-10&to=2026-03-01', 'from'],
      ['?from=2024-01-01&to=2026-01-01', 'to'],
      [`?from=${daysAgo(-3)}`, 'from'], // after today, the default end
      ['?days=7', 'days'],
    ];
    for (const [query, field] of cases) {
      const res = await series(keys.adminA, query);
      expect(res.status, query).toBe(400);
      expect(res.body.tag, query).toBe('INVALID_REQUEST_QUERY');
      expect(res.body.error, query).toContain(field);
    }
    const old = await series(keys.adminA, '?to=2026-01-10');
    expect(old.body).toEqual({ from: '2025-12-12', to: '2026-01-10', data: [] });
    const year = await series(keys.adminA, '?from=2025-01-01&to=2026-01-01');
    expect(year.status).toBe(200); // 366 days: the most
  });
});
