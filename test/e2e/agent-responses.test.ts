/**
 * The OpenAI-style Responses interface (`svc-agent`) end to end with the real OpenAI SDK pointed at the
 * real HTTP door: synchronous, streamed (and the SDK's stream helper), background with retrieve and a
 * replayed stream, cancel, and the errors (wrong model, refused fields, no key) in OpenAI's shape.
 */
import OpenAI from 'openai';
import type { Response as OpenAIResponse, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toResponse } from '../../src/http/responses/events.js';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

const PAGES = [
  storedDoc('https://docs.example.com/undici/pool', 'Connection pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy. Set connections to bound it.'), // prettier-ignore
  storedDoc('https://docs.example.com/undici/agent', 'The undici Agent', 'An undici Agent manages one pool per origin, so a client calling many hosts reuses connections to each.'), // prettier-ignore
  storedDoc('https://blog.example.org/keepalive', 'Keep-alive in Node.js HTTP clients', 'Keep-alive reuses sockets between requests; undici enables it by default with a keepAliveTimeout.'), // prettier-ignore
];

let plain: TestServer; // no model: only efforts minimal and low
let withModel: TestServer;
let model: ModelServer;
let client: OpenAI;

const clientOf = (t: TestServer, apiKey = t.key) => new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });

/** The message item of a response and its one output_text part. */
function answerOf(r: OpenAIResponse) {
  const message = r.output.find((o) => o.type === 'message');
  if (message?.type !== 'message') throw new Error('no message in the output');
  const part = message.content[0];
  if (part?.type !== 'output_text') throw new Error('no output_text in the message');
  return { message, part };
}

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  return err as InstanceType<typeof OpenAI.APIError>;
}

beforeAll(async () => {
  model = await startModelServer({
    reply: (body) => {
      // planning asks for queries as JSON; answers get a cited sentence
      if (/quer/i.test(String(body.messages[0]?.content ?? '')) && /json/i.test(JSON.stringify(body)))
        return { json: { queries: ['undici Agent per origin pools'] } };
      return 'An undici Pool keeps sockets open to one origin and queues requests when they are all busy [1].';
    },
  });
  plain = await startTestServer();
  withModel = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'test-model' });
  for (const t of [plain, withModel]) await t.app.services.documents.upsertMany(PAGES, new Date().toISOString());
  client = clientOf(withModel);
});
afterAll(async () => {
  await plain.close();
  await withModel.close();
  await model.close();
});

describe('svc-agent through the OpenAI SDK', () => {
  it('answers synchronously with a completed response, url_citation annotations, searches and usage', async () => {
    const r = await client.responses.create({
      model: 'svc-agent',
      input: 'How does undici pool connections?',
      instructions: 'Answer in one sentence.',
      reasoning: { effort: 'low' },
      metadata: { ticket: 'T-1' },
    });
    expect(r).toMatchObject({ object: 'response', status: 'completed', model: 'svc-agent', error: null });
    expect(r.id).toMatch(/^run_/);
    expect(r.instructions).toBe('Answer in one sentence.');
    expect(r.metadata).toEqual({ ticket: 'T-1' });
    expect(r.reasoning?.effort).toBe('low');
    expect(r.output_text).toMatch(/undici Pool keeps sockets open/);
    expect(r.output_text).not.toMatch(/\[1\]/);
    const { message, part } = answerOf(r);
    expect(message).toMatchObject({ role: 'assistant', status: 'completed' });
    expect(part.annotations.length).toBeGreaterThan(0);
    expect(part.annotations[0]).toMatchObject({ type: 'url_citation', start_index: 0, end_index: part.text.length });
    expect((part.annotations[0] as { url: string }).url).toMatch(/^https:\/\/(docs|blog)\.example/);
    const searches = r.output.filter((o) => o.type === 'web_search_call');
    expect(searches.length).toBeGreaterThanOrEqual(1);
    expect(searches[0]).toMatchObject({ status: 'completed', action: { type: 'search' } });
    expect(r.usage!.total_tokens).toBeGreaterThan(0);
    expect(r.usage!.input_tokens + r.usage!.output_tokens).toBe(r.usage!.total_tokens);
    expect(r.completed_at).toBeGreaterThanOrEqual(r.created_at);
    // the same run, through /agent/runs
    const run = await withModel.app.services.agentRuns.get(
      r.id,
      await withModel.app.services.keys.verify(withModel.key),
    );
    expect(run.request).toMatchObject({ query: 'How does undici pool connections?', effort: 'low', systemPrompt: 'Answer in one sentence.' }); // prettier-ignore
  });

  it('takes input messages: user text is the task, system messages join the instructions', async () => {
    const r = await client.responses.create({
      model: 'svc-agent',
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'input_text', text: 'undici keep-alive' }] },
      ],
      reasoning: { effort: 'minimal' },
    });
    expect(r.status).toBe('completed');
    expect(r.instructions).toBe('Be brief.');
  });

  it('streams the Responses events, ending with response.completed; the deltas make the final text', async () => {
    const stream = await client.responses.create({ model: 'svc-agent', input: 'undici agent pools', reasoning: { effort: 'low' }, stream: true }); // prettier-ignore
    const events: ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
    for (const t of [
      'response.output_item.added',
      'response.web_search_call.searching',
      'response.web_search_call.completed',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_text.annotation.added',
    ])
      // prettier-ignore
      expect(types).toContain(t);
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(deltas.join('')).toBe(answerOf(done.response).part.text);
    expect(done.response.status).toBe('completed');
    // a retrieve answers the same object as the stream's last event (except background: not recorded)
    const again = await client.responses.retrieve(done.response.id);
    expect(again.background).toBeNull();
    expect({ ...again, output_text: '', background: false }).toEqual({ ...done.response, output_text: '' });
  });

  it('works with the SDK’s responses.stream helper (its accumulator rebuilds the same response)', async () => {
    const stream = client.responses.stream({ model: 'svc-agent', input: 'undici connection reuse', reasoning: { effort: 'low' } }); // prettier-ignore
    let text = '';
    stream.on('response.output_text.delta', (e) => (text += e.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(text);
    expect(answerOf(final).part.annotations.length).toBeGreaterThan(0);
  });

  it('returns at once in the background; retrieve reaches completed, and replays the stream after starting_after', async () => {
    const r = await client.responses.create({ model: 'svc-agent', input: 'undici pool', reasoning: { effort: 'low' }, background: true }); // prettier-ignore
    expect(['queued', 'in_progress']).toContain(r.status);
    expect(r.background).toBe(true);
    expect(r.output.some((o) => o.type === 'message')).toBe(false);
    await withModel.app.services.agentRuns.engine.drain();
    const done = await client.responses.retrieve(r.id);
    expect(done.status).toBe('completed');
    expect(done.output_text.length).toBeGreaterThan(0);
    // with its events gone (zero retention erases them), the run alone still makes the answer
    const run = await withModel.app.services.agentRuns.get(
      r.id,
      await withModel.app.services.keys.verify(withModel.key),
    );
    const bare = toResponse(run, [], null);
    expect(bare).toMatchObject({ status: 'completed', output_text: done.output_text, usage: done.usage });
    expect(bare.output.map((o) => o.type)).toEqual(['message']);

    const replay = await client.responses.retrieve(r.id, { stream: true, starting_after: 2 });
    const events: ResponseStreamEvent[] = [];
    for await (const e of replay) events.push(e);
    expect(events[0]!.sequence_number).toBe(3);
    expect(events.at(-1)!.type).toBe('response.completed');
  });

  it('cancels a background response', async () => {
    model.enqueue({ delayMs: 1500, content: 'late answer [1]' });
    const r = await client.responses.create({ model: 'svc-agent', input: 'slow undici question', reasoning: { effort: 'low' }, background: true }); // prettier-ignore
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    await withModel.app.services.agentRuns.engine.drain();
    expect((await client.responses.retrieve(r.id)).status).toBe('cancelled');
    await client.responses.delete(r.id);
    expect(await rejection(client.responses.retrieve(r.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('cancels a synchronous response whose caller goes away (a background one runs on)', async () => {
    const seen = model.requests.length;
    model.enqueue({ delayMs: 1500, content: 'late answer [1]' });
    const abort = new AbortController();
    const pending = client.responses.create({ model: 'svc-agent', input: 'abandoned undici question', reasoning: { effort: 'low' } }, { signal: abort.signal }); // prettier-ignore
    await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(seen));
    abort.abort();
    expect(await rejection(pending)).toBeInstanceOf(OpenAI.APIUserAbortError);
    const caller = await withModel.app.services.keys.verify(withModel.key);
    await vi.waitFor(async () => {
      const newest = (await withModel.app.services.agentRuns.list(caller, { limit: 1 })).data[0]!;
      expect(newest).toMatchObject({ request: { query: 'abandoned undici question' }, status: 'cancelled' });
    });
    await withModel.app.services.agentRuns.engine.drain();
  });
});

describe('svc-agent errors in OpenAI’s shape', () => {
  it('refuses another model with 400 naming model, creating nothing', async () => {
    const before = await withModel.app.services.agentRuns.list(await withModel.app.services.keys.verify(withModel.key), { limit: 100 }); // prettier-ignore
    const err = await rejection(client.responses.create({ model: 'gpt-4o', input: 'hello' }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toMatch(/model/);
    expect(err.message).toMatch(/svc-agent/);
    expect(err).toMatchObject({ status: 400, param: 'model', code: 'INVALID_REQUEST_BODY', type: 'invalid_request_error' }); // prettier-ignore
    const after = await withModel.app.services.agentRuns.list(await withModel.app.services.keys.verify(withModel.key), { limit: 100 }); // prettier-ignore
    expect(after.data.length).toBe(before.data.length);
  });

  it('refuses unsupported fields with 400 naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: 'web_search' }] }, 'tools'],
      [{ previous_response_id: 'run_x' }, 'previous_response_id'],
      [{ temperature: 0.2 }, 'temperature'],
      [{ text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } } }, 'text.format.type'],
      [{ input: [{ role: 'assistant', content: 'earlier answer' }] }, 'input[0].role'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x.example/a.png' }] }] }, 'input[0].content[0].type'], // prettier-ignore
      [{ reasoning: { effort: 'low', summary: 'auto' } }, 'reasoning.summary'],
      [{ store: false }, 'store'],
      [{ frobnicate: true }, 'frobnicate'],
    ];
    for (const [extra, param] of cases) {
      const body = { model: 'svc-agent', input: 'undici', reasoning: { effort: 'minimal' }, ...extra };
      const err = await rejection(client.responses.create(body as never));
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.param, JSON.stringify(extra)).toBe(param);
      expect(err.message).toContain(param);
    }
  });

  it('answers 401 without a valid key (SDK AuthenticationError), in OpenAI’s shape', async () => {
    const err = await rejection(clientOf(withModel, 'not-a-key').responses.create({ model: 'svc-agent', input: 'x' }));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    const res = await fetch(`${withModel.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-agent', input: 'x' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { type: 'authentication_error', code: 'INVALID_API_KEY', param: null } }); // prettier-ignore
  });

  it('names reasoning.effort when an effort needs the model the server lacks (403)', async () => {
    const err = await rejection(clientOf(plain).responses.create({ model: 'svc-agent', input: 'undici' }));
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err).toMatchObject({ param: 'reasoning.effort', code: 'FEATURE_DISABLED' });
    const ok = await clientOf(plain).responses.create({ model: 'svc-agent', input: 'undici pool', reasoning: { effort: 'minimal' } }); // prettier-ignore
    expect(ok.status).toBe('completed');
    expect(answerOf(ok).part.annotations.length).toBeGreaterThan(0);
  });

  it('answers 404 for another key’s response and 405 for other methods', async () => {
    const r = await client.responses.create({ model: 'svc-agent', input: 'undici', reasoning: { effort: 'minimal' }, background: true }); // prettier-ignore
    const other = (await withModel.app.services.keys.create('other', {}, null)).key;
    expect(await rejection(clientOf(withModel, other).responses.retrieve(r.id))).toBeInstanceOf(OpenAI.NotFoundError);
    const res = await fetch(`${withModel.url}/v1/responses`, { headers: { authorization: `Bearer ${withModel.key}` } });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
    await withModel.app.services.agentRuns.engine.drain();
  });
});
