/** `trawl monitors list | runs | deliveries`: the built CLI reading a data directory another process wrote. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, makeTestApp } from '../helpers/app.js';
import { closedPort } from '../helpers/ports.js';

function trawl(args: string[]) {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, TRAWL_DATA_DIR: '' } }); // prettier-ignore
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('trawl monitors', () => {
  it('lists monitors, runs and every delivery attempt with its error', async () => {
    const t = makeTestApp({ allowInsecureWebhooks: true });
    try {
      const svc = t.app.services.monitors;
      // nothing listens on a port just closed: the delivery fails and is kept for a retry
      const url = `http://127.0.0.1:${await closedPort()}/hook`;
      const m = await svc.create({ name: 'nightly', search: { query: 'undici', numResults: 3 }, trigger: { type: 'interval', period: '1d' }, webhook: { url } }, null); // prettier-ignore
      await svc.engine.flush();
      await svc.trigger(m.id, null);
      await svc.engine.drain();
      const dir = ['--data-dir', t.dataDir];

      const list = trawl(['monitors', 'list', ...dir]);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`${m.id}\\s+active\\s+1d\\s+\\S+\\s+nightly`));

      const runs = trawl(['monitors', 'runs', m.id, ...dir]);
      expect(runs.stdout).toMatch(/RUN\s+STATUS/);
      expect(runs.stdout).toMatch(/run_[0-9a-f]{24}\s+completed/);

      const deliveries = trawl(['monitors', 'deliveries', m.id, ...dir]);
      expect(deliveries.code).toBe(0);
      expect(deliveries.stdout).toMatch(/monitor\.created\s+pending \(next \S+\)\s+1\s+\S+\s+.*not reachable/);
      const parsed = JSON.parse(trawl(['monitors', 'deliveries', m.id, '--json', ...dir]).stdout) as { type: string }[];
      expect(parsed.map((d) => d.type)).toContain('monitor.run.completed');

      const missing = trawl(['monitors', 'runs', 'mon_nope', ...dir]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/monitor mon_nope not found/);
    } finally {
      await t.close();
    }
  });
});
