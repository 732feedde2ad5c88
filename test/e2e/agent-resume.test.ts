/**
 * Agent runs interrupted by a stopped process: resumed from their last completed step by the next
 * process on the data directory (events keep their numbers, completed steps are neither redone nor
 * charged again), or failed `interrupted` when they cannot be resumed. docs/agent.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/compose/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createAgentRunsRepo } from '../../src/store/sqlite/agent-runs.js';
import { MAX_RUN_STARTS } from '../../src/core/agent/progress.js';
import { tempDir } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections.'), // prettier-ignore
];
const ANSWER = 'An undici Pool keeps sockets open to one origin [1].';

let model: ModelServer;
let data: { dir: string; cleanup: () => void };
const apps: App[] = [];

/** A process on the shared data directory (with the loopback model). */
function open(): App {
  const config = loadConfig({}, { dataDir: data.dir, port: 0, logLevel: 'silent', rateLimitQps: 0, modelBaseUrl: model.baseUrl, model: 'test-model' }); // prettier-ignore
  const app = createApp(config, { logger: createLogger('silent') });
  apps.push(app);
  return app;
}

const isPlan = (body: unknown) => /"queries"/.test(JSON.stringify(body));

beforeAll(async () => {
  model = await startModelServer({ reply: (body) => (isPlan(body) ? { json: { queries: ['undici Agent per origin pools'] } } : ANSWER) }); // prettier-ignore
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  data.cleanup();
  model.reset();
});
afterAll(() => model.close());

/** Waits until `test` holds, polling. */
async function until(test: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('resuming agent runs', () => {
  it('resumes a run stopped mid-answer in the next process: same events, one plan, searches counted once', async () => {
    data = tempDir();
    const first = open();
    await first.services.documents.upsertMany(PAGES, new Date().toISOString());
    model.enqueue({ json: { queries: ['undici Agent per origin pools'] } }, { delayMs: 30_000, content: 'too late' }); // prettier-ignore
    const run = await first.services.agentRuns.create({ query: 'how does undici pool connections', effort: 'low' } as never, null); // prettier-ignore
    await until(() => model.requests.length === 2); // planned, searched twice, now writing the answer
    await first.close(); // a process stopping: its run goes back to the queue

    const second = open();
    expect(await second.services.agentRuns.get(run.id, null)).toMatchObject({ status: 'queued', error: null });
    await second.services.agentRuns.engine.tick(); // what a process does at start
    await second.services.agentRuns.engine.drain();
    const done = await second.services.agentRuns.get(run.id, null);
    expect(done).toMatchObject({ status: 'completed', output: { text: expect.stringContaining('undici Pool') } });
    expect(done.usage).toMatchObject({ searches: 2 });
    expect(model.requests.filter((r) => isPlan(r.body))).toHaveLength(1); // the plan was not asked again
    const events = (await second.services.agentRuns.events(run.id, null, { limit: 100 })).data;
    expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
    expect(events.filter((e) => e.event === 'agent_run.started')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'agent_run.search')).toHaveLength(2);
    expect(events.filter((e) => e.event === 'agent_run.completed')).toHaveLength(1);
  });

  it('resumes a run whose process died (lease lapsed) from its saved steps', async () => {
    data = tempDir();
    const app = open();
    await app.services.documents.upsertMany(PAGES, new Date().toISOString());
    const repo = createAgentRunsRepo(app.db);
    const at = new Date().toISOString();
    // what a killed process leaves: planned and searched once, its lease lapsed, five events sent
    await repo.insert({ id: 'run_dead', key_id: '', team_id: 'team_default', request: '{"query":"how does undici pool connections","effort":"low"}', owner: null, lease_until_ms: null, created_at: at }); // prettier-ignore
    const found = [{ url: PAGES[0]!.url, title: PAGES[0]!.title }];
    const research = { log: [['undici Agent per origin pools'], null], found, searches: 1, modelTokens: 0, steps: 2, calls: 1, stopReason: 'schema_satisfied' }; // prettier-ignore
    app.db.prepare("UPDATE agent_runs SET status = 'running', owner = 'gone:1:x', lease_until_ms = 1, started_at = ?, progress = ? WHERE id = 'run_dead'").run(at, JSON.stringify({ starts: 1, clientModel: false, research })); // prettier-ignore
    const sent = ['agent_run.created', 'agent_run.started', 'agent_run.search', 'agent_run.source.added', 'agent_run.tool.progress']; // prettier-ignore
    for (const event of sent) await repo.appendEvent('run_dead', event, '{"callId":"call_1"}', at);

    await app.services.agentRuns.engine.tick();
    await app.services.agentRuns.engine.drain();
    const run = await app.services.agentRuns.get('run_dead', null);
    expect(run).toMatchObject({ status: 'completed', startedAt: at, usage: { searches: 2 } });
    expect(model.requests.filter((r) => isPlan(r.body))).toHaveLength(0);
    const events = (await app.services.agentRuns.events('run_dead', null, { limit: 100 })).data;
    expect(events.map((e) => e.id)).toEqual(events.map((_e, i) => i + 1));
    expect(events.slice(0, 5).map((e) => e.event)).toEqual(sent);
    const searches = events.filter((e) => e.event === 'agent_run.search').map((e) => e.data.callId);
    expect(searches).toEqual(['call_1', 'call_2']); // the second search only, numbered after the first
    expect((await repo.get('run_dead'))!.progress).toBeNull(); // what it found is not kept once it ended
  });

  it('fails as interrupted a run that cannot be resumed: the MCP client’s model, or too many starts', async () => {
    data = tempDir();
    const app = open();
    const repo = createAgentRunsRepo(app.db);
    const at = new Date().toISOString();
    const cases = { run_client: { starts: 1, clientModel: true }, run_loop: { starts: MAX_RUN_STARTS, clientModel: false } }; // prettier-ignore
    for (const [id, progress] of Object.entries(cases)) {
      await repo.insert({ id, key_id: '', team_id: 'team_default', request: '{"query":"q","effort":"low"}', owner: null, lease_until_ms: null, created_at: at }); // prettier-ignore
      app.db.prepare("UPDATE agent_runs SET status = 'running', owner = 'gone:1:x', lease_until_ms = 1, progress = ? WHERE id = ?").run(JSON.stringify({ ...progress, research: null }), id); // prettier-ignore
    }
    await app.services.agentRuns.engine.tick();
    expect(await app.services.agentRuns.get('run_client', null)).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: expect.stringMatching(/interrupted.*MCP client’s model/) } }); // prettier-ignore
    expect(await app.services.agentRuns.get('run_loop', null)).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: expect.stringMatching(/started 3 times/) } }); // prettier-ignore
  });
});
