/**
 * `trawl prune [--dry-run]`: the built CLI on a data directory holding records on both sides of their
 * retention: a dry run prints what would go and changes nothing; a sweep deletes it, `trawl usage`
 * totals are the same after usage is folded, and a bad retention is refused naming its setting.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { CLI, tempDir } from '../helpers/app.js';

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function trawl(args: string[], dataDir: string) {
  const res = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, TRAWL_DATA_DIR: '' } }); // prettier-ignore
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

let dir: string;
let cleanup: () => void;
const now = Date.now();

beforeAll(() => {
  ({ dir, cleanup } = tempDir('trawl-prune-'));
  const db = openDatabase(dir);
  const spend = db.prepare("INSERT INTO spend VALUES ('key_a', 'team_default', ?, 'search', ?, ?)");
  spend.run(dayOf(now - 200 * DAY), 3, 3000);
  spend.run(dayOf(now - 199 * DAY), 2, 2000);
  spend.run(dayOf(now), 1, 1000);
  const at = new Date(now - 100 * DAY).toISOString();
  db.prepare("INSERT INTO crawl_jobs (id, seeds, scope, state, created_at, updated_at) VALUES ('job_old', '[]', '{}', 'finished', ?, ?)").run(at, at); // prettier-ignore
  db.prepare("INSERT INTO crawl_jobs (id, seeds, scope, state, created_at, updated_at) VALUES ('job_run', '[]', '{}', 'active', ?, ?)").run(at, at); // prettier-ignore
  for (const job of ['job_old', 'job_run']) {
    db.prepare("INSERT INTO crawl_frontier (job_id, url, depth, state, updated_at) VALUES (?, 'https://a.example/', 0, 'done', ?)").run(job, at); // prettier-ignore
  }
  db.close();
});
afterAll(() => cleanup());

const count = (table: string) => {
  const db = openDatabase(dir);
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('trawl prune', () => {
  it('a dry run prints what would go and changes nothing; a sweep deletes it and usage totals stay', () => {
    const usageBefore = JSON.parse(trawl(['usage', '--days', '366', '--json'], dir).stdout) as { requests: number }[];
    expect(usageBefore.find((line) => line.requests === 6)).toBeDefined(); // the three days' requests, summed

    const dry = trawl(['prune', '--dry-run', '--retain-usage-days', '30'], dir);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/kind\s+kept \(days\)\s+line\s+would delete/);
    expect(dry.stdout).toMatch(/usage\s+30\s+\S+\s+2\b/);
    expect(dry.stdout).toMatch(/crawlFrontier\s+14\s+\S+\s+1\b/);
    expect(dry.stdout).toMatch(/dry run: nothing changed; 3 row\(s\) would go/);
    expect([count('spend'), count('crawl_frontier'), count('usage_months')]).toEqual([3, 2, 0]);

    const real = trawl(['prune', '--retain-usage-days', '30', '--json'], dir);
    expect(real.code).toBe(0);
    const report = JSON.parse(real.stdout) as { dryRun: boolean; kinds: { kind: string; rows: number }[] };
    expect(report.dryRun).toBe(false);
    expect(Object.fromEntries(report.kinds.map((k) => [k.kind, k.rows]))).toMatchObject({ usage: 2, crawlFrontier: 1 });
    expect([count('spend'), count('crawl_frontier'), count('usage_months')]).toEqual([1, 1, 1 + Number(dayOf(now - 200 * DAY).slice(0, 7) !== dayOf(now - 199 * DAY).slice(0, 7))]); // prettier-ignore
    expect(JSON.parse(trawl(['usage', '--days', '366', '--json'], dir).stdout)).toEqual(usageBefore);

    const forever = trawl(['prune', '--retain-crawl-frontier-days', 'forever', '--json'], dir);
    expect(JSON.parse(forever.stdout).kinds.find((k: { kind: string }) => k.kind === 'crawlFrontier')).toMatchObject({ days: null, rows: 0 }); // prettier-ignore
  }, 120_000); // six processes of the built CLI, each a few seconds on a busy machine

  it('refuses a retention that is not a number of days, naming the setting', () => {
    const bad = trawl(['prune', '--retain-usage-days', 'soon'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/retain-usage-days|TRAWL_RETAIN_USAGE_DAYS/);
    expect(bad.stderr).toMatch(/whole number of days/);
  }, 60_000);
});
