import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { livingLines, NODE_LINES, nodeLineStatus } from '../../../src/core/status/node-line.js';
import { nextSteps, type Facts } from '../../../src/core/status/next-steps.js';

const day = (iso: string) => new Date(`${iso}T12:00:00Z`);

/** A report's facts with nothing to say but the runtime's. */
function facts(runtime: Facts['runtime']): Facts {
  const off = { name: 'x', configured: false, state: 'off' as const, detail: '' };
  return {
    dataDir: { path: '/d', exists: true, writable: true, bytes: 0, database: true, sizeCapped: false },
    store: { backend: 'sqlite', version: '3' },
    index: {
      documents: 1,
      searchable: 1,
      embeddedChunks: 0,
      code: { chunks: 1, files: 1, sources: 1 },
      collections: [],
      collectionCount: 0,
    },
    keys: { active: 1, revoked: 0, admins: [], firstKeyFile: null },
    providers: { webSearch: [], model: off, embeddings: off, browser: off, codeModel: off },
    listener: { ...off, host: '127.0.0.1', port: 8787 },
    signIn: [],
    runtime,
  } as Facts;
}

describe('the Node.js line', () => {
  it('is supported and maintained, then ended, by its end-of-life date', () => {
    expect(nodeLineStatus('v22.12.0', day('2026-11-29'))).toEqual({
      node: 'v22.12.0',
      supported: true,
      endOfLife: '2027-04-30',
      ended: false,
    });
    expect(nodeLineStatus('v20.20.2', day('2026-04-30')).ended).toBe(false);
    expect(nodeLineStatus('v20.20.2', day('2026-05-01')).ended).toBe(true);
    expect(nodeLineStatus('v23.1.0', day('2026-01-01'))).toEqual({ node: 'v23.1.0', supported: false, ended: false });
  });

  it('names the lines still maintained', () => {
    expect(livingLines(day('2026-11-29'))).toBe('22 or 24');
    expect(livingLines(day('2026-01-01'))).toBe('20, 22 or 24');
  });

  it('gives a next step for an ended or unsupported line only', () => {
    const now = day('2026-11-29');
    const ended = nextSteps(facts(nodeLineStatus('v20.20.2', now)), now).map((s) => s.message + ' ' + s.fix);
    expect(ended.join('\n')).toMatch(/Node\.js 20 reached its end of life on 2026-04-30.*Install Node\.js 22 or 24/s);
    const odd = nextSteps(facts(nodeLineStatus('v23.1.0', now)), now).map((s) => s.message);
    expect(odd.join('\n')).toContain('Node.js v23.1.0 is not a line Trawl supports');
    expect(nextSteps(facts(nodeLineStatus('v24.1.0', now)), now).some((s) => /Node\.js/.test(s.message))).toBe(false);
  });

  it("agrees with package.json's engines", () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    const majors = [...pkg.engines.node.matchAll(/(\d+)\.\d+/g)].map((m) => Number(m[1]));
    expect(majors).toEqual(Object.keys(NODE_LINES).map(Number));
  });
});
