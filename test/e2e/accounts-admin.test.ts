/**
 * Administration by keys over the real HTTP door: a team admin (`admin:team`) manages its own team's keys
 * and grants only scopes it holds; an operator key (`admin`) acts on any team, and every change it makes
 * there is an audit record that team's admin reads; `trawl audit`, `keys list` and `doctor` show the same.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, CLI, startTestServer, type TestServer } from '../helpers/app.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
let teamA: string;
let adminA: string;
let operatorB: string;

const call = (key: string, method: string, path: string, body?: unknown) => callJson(t.url, key, method, path, body);

/**
 * Runs the CLI on the server's data directory without blocking this process: a blocked event loop lets
 * the door's idle keep-alive sockets expire under the next request (ECONNRESET on a loaded machine).
 */
const trawl = (...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const env = { ...process.env, TRAWL_DATA_DIR: '' };
    execFile(
      process.execPath,
      [CLI, ...args, '--data-dir', t.dataDir],
      { encoding: 'utf8', env },
      (err, stdout, stderr) => {
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      },
    );
  });

beforeAll(async () => {
  t = await startTestServer();
  const { teams } = t.app.services.accounts;
  teamA = (await teams.create('admin-a', {}, null)).id;
  const teamB = (await teams.create('admin-b', {}, null)).id;
  const keys = t.app.services.keys;
  adminA = (await keys.create('a admin', { teamId: teamA, scopes: ['search', 'admin:team'] }, null)).key;
  operatorB = (await keys.create('b operator', { teamId: teamB, scopes: ['admin'] }, null)).key;
});
afterAll(() => t.close());

describe('a team admin (admin:team)', () => {
  it('makes keys in its own team only, with scopes it holds, and never an admin key', async () => {
    const made = await call(adminA, 'POST', '/admin/keys', { name: 'agent', scopes: ['search'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ teamId: teamA, scopes: ['search'], admin: false });
    // without scopes: every scope but the admin ones, which it may grant only if it holds them all
    const plain = await call(adminA, 'POST', '/admin/keys', { name: 'plain' });
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatch(/may grant only scopes it holds, and it lacks contents, context, monitors, agent/);
    const admin = await call(adminA, 'POST', '/admin/keys', { name: 'escalate', scopes: ['admin'] });
    expect(admin.status).toBe(403);
    expect(admin.body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE' });
    expect(admin.body.error).toMatch(/only an operator key \(scope "admin"\) makes admin keys/);
    const elsewhere = await call(adminA, 'POST', '/admin/keys', { name: 'x', team: 'admin-b', scopes: ['search'] });
    expect(elsewhere).toMatchObject({ status: 404, body: { tag: 'NOT_FOUND' } });
  });

  it("lists, rescopes and revokes its team's keys, and another team's key is not found", async () => {
    const mine = (await call(adminA, 'POST', '/admin/keys', { name: 'narrow me', scopes: ['search'] })).body;
    const theirs = await t.app.services.keys.create('of b', { teamId: (await t.app.services.accounts.teams.idOf('admin-b', null)) }, null); // prettier-ignore
    const listed = await call(adminA, 'GET', '/admin/keys');
    expect(listed.body.data.every((k: Json) => k.teamId === teamA)).toBe(true);
    expect(listed.body.data.map((k: Json) => k.id)).toContain(mine.id);
    expect((await call(adminA, 'PATCH', `/admin/keys/${theirs.id}`, { scopes: ['search'] })).status).toBe(404);
    expect((await call(adminA, 'DELETE', `/admin/keys/${theirs.id}`)).status).toBe(404);
    const teams = await call(adminA, 'GET', '/admin/teams');
    expect(teams.body.data.map((x: Json) => x.name)).toEqual(['admin-a']);
    expect((await call(adminA, 'POST', '/admin/teams/admin-a/credits', { amount: 5 })).body.tag).toBe(
      'INSUFFICIENT_SCOPE',
    );
    expect((await call(adminA, 'GET', '/status')).body.tag).toBe('INSUFFICIENT_SCOPE');
    expect((await call(adminA, 'DELETE', `/admin/keys/${mine.id}`)).body.revokedAt).toMatch(/^\d{4}-/);
  });
});

describe('an operator key (admin) acting on another team', () => {
  it('leaves an audit record of each change, which the team reads and another team does not', async () => {
    const made = await call(operatorB, 'POST', '/admin/keys', { name: 'from the operator', team: 'admin-a', scopes: ['search', 'contents'] }); // prettier-ignore
    expect(made.status).toBe(201);
    expect((await call(operatorB, 'PATCH', `/admin/keys/${made.body.id}`, { scopes: ['search'] })).status).toBe(200);
    expect((await call(operatorB, 'POST', '/admin/teams/admin-a/credits', { amount: 25 })).body.credits).toBe(25);
    expect((await call(operatorB, 'PATCH', '/admin/teams/admin-a', { enterprise: true })).status).toBe(200);

    const audit = await call(adminA, 'GET', '/admin/audit');
    expect(audit.status).toBe(200);
    const byOperator = audit.body.data.filter((r: Json) => r.actor.keyId !== null && r.actor.teamId !== teamA);
    expect(byOperator.map((r: Json) => r.action)).toEqual([
      'teams.update',
      'teams.credits',
      'keys.update',
      'keys.create',
    ]);
    for (const r of byOperator) {
      expect(r.teamId).toBe(teamA);
      expect(Date.parse(r.at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(byOperator[0].detail).toEqual({ enterprise: { from: 0, to: 1 } });
    expect(byOperator[1].detail).toEqual({ added: 25 });
    expect(byOperator[2].detail).toEqual({ scopes: ['search'], was: ['search', 'contents'] });
    expect(JSON.stringify(audit.body)).not.toContain(made.body.key); // never the key itself
    // team B's own records do not include team A's; the operator reads both
    const bAdmin = (await t.app.services.keys.create('b admin', { teamId: (await t.app.services.accounts.teams.idOf('admin-b', null)), scopes: ['admin:team'] }, null)).key; // prettier-ignore
    const seenByB = await call(bAdmin, 'GET', '/admin/audit');
    expect(seenByB.body.data.some((r: Json) => r.teamId === teamA)).toBe(false);
    expect((await call(bAdmin, 'GET', '/admin/audit?team=admin-a')).status).toBe(404);
    const all = await call(operatorB, 'GET', '/admin/audit?team=admin-a&limit=2');
    expect(all.body).toMatchObject({ hasMore: true, data: [{ action: 'teams.update' }, { action: 'teams.credits' }] });
    const next = await call(operatorB, 'GET', `/admin/audit?team=admin-a&limit=2&cursor=${all.body.nextCursor}`);
    expect(next.body.data.map((r: Json) => r.action)).toEqual(['keys.update', 'keys.create']);
  });

  it('is listed by the CLI, whose own changes are audited as made locally', async () => {
    const listed = await trawl('keys', 'list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/b operator\s+admin-b\s+admin \(admin: every team\)/);
    expect((await trawl('credits', 'add', '--team', 'admin-a', '3')).status).toBe(0);
    const audit = await trawl('audit', '--team', 'admin-a', '--limit', '1');
    expect(audit.status, audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/admin-a\s+teams\.credits\s+team_\w+\s+\(local: the CLI\)\s+\{"added":3\}/);
  });

  it('is named by trawl doctor and GET /status, which list every key that holds admin', async () => {
    const doctor = await trawl('doctor');
    expect(doctor.stdout).toMatch(/hold admin \(every team's keys and credits\): .*"b operator"/);
    expect(doctor.stdout).not.toMatch(/"a admin"/); // admin:team is not admin
    const status = await call(operatorB, 'GET', '/status');
    expect(status.body.keys.admins.map((k: Json) => k.name)).toEqual(expect.arrayContaining(['test', 'b operator']));
    expect(status.body.keys.admins.every((k: Json) => k.legacy === false)).toBe(true);
  });
});
