/**
 * Monitors through the clients people use: the `monitors` MCP tool (the SDK's real client over an
 * in-memory transport, every tool enabled) and exa-js's `monitors` client over the REST door.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Exa } from 'exa-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/catalog.js';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { connectMcp, fenced, outsideFences, recordOf, textOf, type ToolResult } from '../helpers/mcp.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestServer;
let receiver: Receiver;
let client: Client;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startTestServer({ allowInsecureWebhooks: true });
  client = await connectMcp(t.app, { tools: ALL_TOOLS });
});
afterAll(async () => {
  await client.close();
  await t.close();
  await receiver.close();
});

const call = async (args: Record<string, unknown>) =>
  (await client.callTool({ name: 'monitors', arguments: args })) as ToolResult;

describe('the monitors MCP tool', () => {
  it('creates (showing the secret once), lists, triggers and reads runs through one tool', async () => {
    const created = await call({
      action: 'create',
      name: 'undici releases',
      search: { query: 'undici release' },
      trigger: { type: 'interval', period: '1d' },
      webhook: { url: receiver.url },
    });
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent!.id as string;
    const secret = created.structuredContent!.webhookSecret as string;
    const monitor = (await t.app.services.monitors.get(id, null)) as Json;
    expect(recordOf(created)).toEqual({ ...monitor, webhookSecret: secret });
    expect(created.content[0]!.text).toContain(`webhookSecret: ${secret}`);
    expect(created.content[0]!.text).toMatch(new RegExp(`^Monitor ${id} created\\. .*not shown again`));

    const got = await call({ action: 'get', id });
    expect(recordOf(got)).toEqual(monitor);
    expect(got.structuredContent).toMatchObject({ id, name: 'undici releases', status: 'active' });
    expect(JSON.stringify(got)).not.toContain(secret);

    const listed = await call({ action: 'list', limit: 10 });
    expect(listed.structuredContent).toEqual({ hasMore: false, nextCursor: null, data: [monitor] });
    expect(textOf(listed)).toBe(`Monitors:\n\n${id}  active  undici releases  next run: ${monitor.nextRunAt}`);

    const triggered = await call({ action: 'trigger', id });
    expect(recordOf(triggered)).toEqual({ triggered: true });
    await t.app.services.monitors.engine.drain();
    const runs = await call({ action: 'list_runs', id });
    expect(runs.structuredContent).toMatchObject({ hasMore: false, nextCursor: null });
    const run = (runs.structuredContent!.data as Json[])[0]!;
    expect(run).toMatchObject({ monitorId: id, status: 'completed' });
    // one run: its record without the output, which comes once, fenced in the text
    const one = await call({ action: 'get_run', id, runId: run.id });
    const { output, ...fields } = (await t.app.services.monitors.run(id, run.id as string, null)) as unknown as Json;
    expect(run).toEqual(fields); // lists leave outputs out too
    expect(recordOf(one)).toEqual(fields);
    expect(outsideFences(textOf(one))).toMatch(new RegExp(`^Run ${run.id} of monitor ${id}\\n[^]*\\n\\noutput:\\n<fence>$`)); // prettier-ignore
    expect(fenced(textOf(one))).toEqual([{ source: 'monitor run output', content: JSON.stringify(output, null, 1) }]);

    await t.app.services.monitors.engine.flush();
    const deliveries = await call({ action: 'list_deliveries', id });
    expect(deliveries.content[0]!.text).toMatch(/monitor\.created {2}delivered/);
    expect(deliveries.structuredContent).toMatchObject({ hasMore: false, nextCursor: null, data: expect.arrayContaining([expect.objectContaining({ type: 'monitor.created', status: 'delivered' })]) }); // prettier-ignore

    const updated = await call({ action: 'update', id, status: 'paused' });
    expect(recordOf(updated)).toEqual(await t.app.services.monitors.get(id, null));
    expect(updated.structuredContent).toMatchObject({ status: 'paused', nextRunAt: null });
    const deleted = await call({ action: 'delete', id });
    expect(recordOf(deleted)).toMatchObject({ id, status: 'paused' });
    expect(textOf(deleted)).toMatch(new RegExp(`^Monitor ${id} deleted\\.`));
  });

  it("answers an action's bad or foreign arguments with an error naming them", async () => {
    const stray = await call({ action: 'get', id: 'mon_x', runId: 'run_y' });
    expect(stray.isError).toBe(true);
    expect(stray.content[0]!.text).toMatch(/^INVALID_REQUEST_BODY: runId: not an argument of action "get"/);
    const missing = await call({ action: 'create', search: { query: 'x' } });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/webhook/);
    const unknown = await call({ action: 'get', id: 'mon_nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toMatch(/^NOT_FOUND: monitor mon_nope not found/);
    const action = await call({ action: 'pause', id: 'mon_x' });
    expect(action.content[0]!.text).toBe(
      'INVALID_REQUEST_BODY: action: must be one of create, list, get, update, delete, trigger, list_runs, get_run, list_deliveries', // prettier-ignore
    );
  });

  it('is served only when enabled: the default tools leave it out', async () => {
    const plain = await connectMcp(t.app);
    await expect(plain.callTool({ name: 'monitors', arguments: { action: 'list' } })).rejects.toThrow(/Tool monitors not found/); // prettier-ignore
    await plain.close();
  });
});

describe('exa-js monitors client', () => {
  it('creates, gets, lists, updates, triggers, reads runs and deletes', async () => {
    const exa = new Exa(t.key, t.url);
    const created = await exa.monitors.create({
      name: 'sdk monitor',
      search: { query: 'http client release', numResults: 5, includeDomains: ['example.com'] },
      trigger: { type: 'interval', period: '12h' },
      webhook: { url: receiver.url, events: ['monitor.run.completed'] },
      metadata: { team: 'platform' },
    });
    expect(created.webhookSecret).toMatch(/^whsec_/);
    expect(created.search).toMatchObject({ query: 'http client release', includeDomains: ['example.com'] });
    expect((await exa.monitors.get(created.id)).metadata).toEqual({ team: 'platform' });
    const list = await exa.monitors.list({ limit: 5 });
    expect(list.data.map((m) => m.id)).toContain(created.id);
    const updated = await exa.monitors.update(created.id, { name: 'renamed', metadata: null });
    expect(updated).toMatchObject({ name: 'renamed', metadata: null });
    expect(await exa.monitors.trigger(created.id)).toEqual({ triggered: true });
    await t.app.services.monitors.engine.drain();
    const runs = await exa.monitors.runs.list(created.id);
    expect(runs.data[0]!.status).toBe('completed');
    expect((await exa.monitors.runs.get(created.id, runs.data[0]!.id)).id).toBe(runs.data[0]!.id);
    expect((await exa.monitors.delete(created.id)).id).toBe(created.id);
    await expect(exa.monitors.get(created.id)).rejects.toThrow(/not found/);
  });
});
