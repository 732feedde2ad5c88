/**
 * Synthesized answers on /search through the real REST door, written by a model on a loopback server
 * that speaks the Chat Completions wire format: text and object outputs with grounding, one repair of an
 * invalid answer, failing and slow models (the results answered without the answer, with a warning),
 * schema limits, and `stream: true` read by hand, by the OpenAI SDK's stream reader and by exa-js's
 * streamSearch; a client that hangs up cancels the model call.
 */
import { Exa } from 'exa-js';
import { Stream } from 'openai/core/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ChatCompletionRequestBody, type ModelServer } from '../helpers/model-server.js';

const FETCHED = '2026-11-20T10:00:00.000Z';
const DOCS = [
  storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps up to connections sockets open to one origin. Requests queue when every socket is busy. The default is unlimited connections.', { publishedDate: '2024-03-01T00:00:00.000Z' }), // prettier-ignore
  storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin and picks it by the request origin. Agents are the dispatcher of fetch in Node.js.'), // prettier-ignore
  storedDoc(
    'https://other.example.org/cooking',
    'Cooking pasta',
    'Boil water, add salt, cook the pasta for nine minutes.',
  ),
  storedDoc('https://nodejs.example/dispatcher', 'setGlobalDispatcher', 'setGlobalDispatcher replaces the dispatcher that fetch uses in the whole process.'), // prettier-ignore
];

let model: ModelServer;
let t: TestServer;

beforeAll(async () => {
  model = await startModelServer({ apiKey: 'sk-model-secret' });
  t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelApiKey: 'sk-model-secret', modelTimeoutMs: 3000 }); // prettier-ignore
  await t.app.services.documents.upsertMany(DOCS, FETCHED);
});
afterEach(() => model.reset());
afterAll(async () => {
  await t.close();
  await model.close();
});

const search = (body: Record<string, unknown>) => postJson(t.url, '/search', body, { 'x-api-key': t.key });
type Output = { content: unknown; grounding: { field: string; citations: { url: string; title: string }[]; confidence: string }[] }; // prettier-ignore
const urlsOf = (body: Record<string, unknown>) => (body.results as { url: string }[]).map((r) => r.url);
const lastUser = (body: ChatCompletionRequestBody) => body.messages.filter((m) => m.role === 'user').at(-1)!.content;

describe('/search with outputSchema and a configured model', () => {
  it('answers in text, citations taken out of the text into grounding, costed by tokens', async () => {
    model.setReply('An undici Pool keeps sockets open to one origin [1]. The Agent holds one Pool per origin [2][1].');
    const res = await search({ query: 'how does undici pool connections', type: 'instant', outputSchema: { type: 'text' } }); // prettier-ignore
    expect(res.status).toBe(200);
    const output = res.body.output as Output;
    expect(output.content).toBe(
      'An undici Pool keeps sockets open to one origin. The Agent holds one Pool per origin.',
    );
    expect(output.grounding).toHaveLength(1);
    expect(output.grounding[0]!.field).toBe('content');
    const cited = output.grounding[0]!.citations.map((c) => c.url);
    expect(cited.sort()).toEqual(['https://blog.example.com/undici-agent', 'https://docs.example.com/undici/pool']);
    for (const url of cited) expect(urlsOf(res.body)).toContain(url);
    expect(output.grounding[0]!.confidence).toBe('high');
    // the model read highlights of the results, the question, and the key went only in the header
    const sent = model.requests[0]!;
    expect(sent.headers.authorization).toBe('Bearer sk-model-secret');
    expect(lastUser(sent.body)).toContain('Question: how does undici pool connections');
    expect(lastUser(sent.body)).toContain('[1] ');
    expect(lastUser(sent.body)).toContain('https://docs.example.com/undici/pool');
    // gpt-4o-mini list price on top of the search's own price
    expect((res.body.costDollars as { total: number }).total).toBeGreaterThan(0.005);
  });

  it('drops citations of sources that are not results, and passes the system prompt on', async () => {
    model.setReply('Pools keep sockets open [1][9].');
    const res = await search({ query: 'undici pool sockets', type: 'instant', numResults: 1, outputSchema: { type: 'text', description: 'one sentence' }, systemPrompt: 'Answer like a pirate.' }); // prettier-ignore
    const output = res.body.output as Output;
    expect(output.grounding[0]!.citations.map((c) => c.url)).toEqual([urlsOf(res.body)[0]]);
    const system = model.requests[0]!.body.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('Answer like a pirate.');
    expect(system.content).toContain('one sentence');
  });

  it('answers an object schema with per-field grounding, asking for structured output', async () => {
    // a model that cites the right source numbers: the Agent page for the dispatcher, the Pool page for notes
    const numberOf = (body: ChatCompletionRequestBody, title: string) =>
      Number(new RegExp(`\\[(\\d+)\\] ${title}`).exec(lastUser(body))![1]);
    model.setReply((body) => ({
      json: {
        content: { dispatcher: 'Agent', poolsPerOrigin: 1, notes: ['requests queue when sockets are busy'] },
        citations: {
          dispatcher: [numberOf(body, 'The undici Agent')],
          poolsPerOrigin: [numberOf(body, 'The undici Agent')],
          'notes[0]': [numberOf(body, 'Pooling in undici')],
        },
      },
    }));
    const outputSchema = {
      type: 'object',
      properties: {
        dispatcher: { type: 'string' },
        poolsPerOrigin: { type: 'integer' },
        notes: { type: 'array', items: { type: 'string' } },
      },
      required: ['dispatcher', 'poolsPerOrigin'],
    };
    const res = await search({ query: 'undici agent pool per origin', type: 'instant', outputSchema });
    expect(res.status).toBe(200);
    const output = res.body.output as Output;
    expect(output.content).toEqual({ dispatcher: 'Agent', poolsPerOrigin: 1, notes: ['requests queue when sockets are busy'] }); // prettier-ignore
    const fields = Object.fromEntries(output.grounding.map((g) => [g.field, g]));
    const agent = 'https://blog.example.com/undici-agent';
    const pool = 'https://docs.example.com/undici/pool';
    expect(fields['content.dispatcher']!.citations.map((c) => c.url)).toEqual([agent]);
    expect(fields['content.notes']!.citations.map((c) => c.url)).toEqual([pool]);
    expect(fields['content.notes[0]']!.citations.map((c) => c.url)).toEqual([pool]);
    expect(fields['content.dispatcher']!.confidence).toBe('high'); // the Agent page holds the word
    const format = model.requests[0]!.body.response_format!;
    expect(format.type).toBe('json_schema');
    expect((format.json_schema!.schema as { properties: { content: unknown } }).properties.content).toMatchObject({ properties: outputSchema.properties }); // prettier-ignore
  });

  it('asks once for a repair of an invalid answer, then answers the results without it, with a warning', async () => {
    const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    model.enqueue('not json at all', { json: { content: { count: 3 }, citations: { count: [1] } } });
    const repaired = await search({ query: 'undici pool', type: 'instant', outputSchema: schema });
    expect(repaired.status).toBe(200);
    expect((repaired.body.output as Output).content).toEqual({ count: 3 });
    expect(model.requests).toHaveLength(2);
    expect(lastUser(model.requests[1]!.body)).toContain('not valid');

    model.reset();
    model.setReply({ json: { content: { count: 'three' }, citations: {} } });
    const failed = await search({ query: 'undici pool', type: 'instant', outputSchema: schema });
    expect(failed.status).toBe(200);
    expect(failed.body).not.toHaveProperty('output');
    expect((failed.body.results as unknown[]).length).toBeGreaterThan(0);
    expect(failed.body.warnings).toEqual([
      { code: 'MODEL_FAILED', message: expect.stringMatching(/did not match outputSchema after one repair: \/content\/count must be integer/) }, // prettier-ignore
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it('answers the results without the answer of a failing or slow model, never its key, address or words', async () => {
    model.setReply({ status: 401, body: { error: { message: 'bad key' } } });
    const failing = await search({ query: 'undici pool', type: 'instant', outputSchema: { type: 'text' } });
    expect(failing.status).toBe(200);
    expect(failing.body).not.toHaveProperty('output');
    const [warning] = failing.body.warnings as { code: string; message: string }[];
    expect(warning).toMatchObject({ code: 'MODEL_FAILED', message: expect.stringContaining('the language model failed (HTTP 401)') }); // prettier-ignore
    for (const leak of ['sk-model-secret', 'bad key', new URL(model.baseUrl).host]) {
      expect(JSON.stringify(failing.body)).not.toContain(leak);
    }
    model.setReply({ content: 'late', delayMs: 5000 });
    const slow = await search({ query: 'undici pool', type: 'instant', outputSchema: { type: 'text' } });
    expect(slow.status).toBe(200);
    expect(slow.body.warnings).toEqual([{ code: 'MODEL_FAILED', message: expect.stringContaining('did not answer in time') }]); // prettier-ignore
  });

  it('rejects output schemas beyond the limits, naming what is wrong', async () => {
    const deep = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'string' } } } } } } }; // prettier-ignore
    const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, { type: 'string' }])) }; // prettier-ignore
    const citing = { type: 'object', properties: { answer: { type: 'string' }, citations: { type: 'array' } } };
    for (const [schema, words] of [
      [deep, 'depth'],
      [many, '10'],
      [citing, 'citations'],
    ] as const) {
      const res = await search({ query: 'x', outputSchema: schema });
      expect(res.status).toBe(400);
      expect(String(res.body.error)).toContain(words);
    }
    expect(model.requests).toHaveLength(0);
  });
});

describe('deep search types with a model', () => {
  const planning = (body: ChatCompletionRequestBody) => body.response_format?.json_schema?.name === 'plan';

  it('deep-lite searches what the model plans too; instant does not plan', async () => {
    model.setReply((body) => (planning(body) ? { json: { queries: ['setGlobalDispatcher'] } } : 'n/a'));
    const deep = await search({ query: 'undici pool', type: 'deep-lite' });
    expect(deep.status).toBe(200);
    expect(urlsOf(deep.body)).toContain('https://nodejs.example/dispatcher');
    const plan = model.requests.find((r) => planning(r.body))!;
    expect(lastUser(plan.body)).toBe('Question: undici pool');
    expect(plan.body.messages[0]!.content).toContain('At most 3 queries');
    // the planning tokens are in the price: more than the deep search alone
    expect((deep.body.costDollars as { total: number }).total).toBeGreaterThan(0.015);
    model.reset();
    const instant = await search({ query: 'undici pool', type: 'instant' });
    expect(urlsOf(instant.body)).not.toContain('https://nodejs.example/dispatcher');
    expect(model.requests).toHaveLength(0);
  });

  it('deep-reasoning reads the first results and searches again for what is missing', async () => {
    model.setReply((body) => {
      if (!planning(body)) return 'n/a';
      return lastUser(body).includes('Results so far') ? { json: { queries: ['setGlobalDispatcher'] } } : { json: { queries: [] } }; // prettier-ignore
    });
    const res = await search({ query: 'undici pool', type: 'deep-reasoning' });
    const plans = model.requests.filter((r) => planning(r.body));
    expect(plans).toHaveLength(2);
    // the follow-up read the results: their titles and the passages that match the question
    expect(lastUser(plans[1]!.body)).toMatch(/Results so far:\n1\. .+: .*[Pp]ool/);
    expect(urlsOf(res.body)).toContain('https://nodejs.example/dispatcher');
  });

  it('still searches when planning fails', async () => {
    model.setReply({ status: 400, body: { error: { message: 'no' } } });
    const res = await search({ query: 'undici pool', type: 'deep' });
    expect(res.status).toBe(200);
    expect(urlsOf(res.body).length).toBeGreaterThan(0);
  });
});

/** The `data:` payloads of an SSE body. */
function frames(text: string): string[] {
  return text
    .split('\n\n')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length));
}

describe('/search with stream: true', () => {
  it('streams chat.completion.chunk frames, markers removed, then the response and [DONE]', async () => {
    model.setReply({ content: 'Pools keep sockets open [1]. Agents pick a pool per origin [2].', chunks: ['Pools keep sockets open [', '1]. Agents pick', ' a pool per origin [2', '].'] }); // prettier-ignore
    const res = await fetch(`${t.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ query: 'undici pool agent', type: 'instant', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = frames(await res.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const c of chunks) expect(c.object).toBe('chat.completion.chunk');
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toBe('Pools keep sockets open. Agents pick a pool per origin.');
    const last = chunks.at(-1)!;
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.output.content).toBe(text);
    expect(last.output.grounding[0].citations).toHaveLength(2);
    expect(last.citations.map((c: { url: string }) => c.url)).toEqual(last.results.map((r: { url: string }) => r.url));
    expect(model.requests[0]!.body.stream).toBe(true);
  });

  it('parses with the OpenAI SDK stream reader and with exa-js streamSearch', async () => {
    model.setReply({ content: 'Undici pools sockets per origin [1].', chunks: ['Undici pools ', 'sockets per origin [1].'] }); // prettier-ignore
    const res = await fetch(`${t.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ query: 'undici pool', type: 'instant', stream: true }),
    });
    const controller = new AbortController();
    let viaOpenAi = '';
    let finish: string | null = null;
    for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(res as never, controller)) {
      viaOpenAi += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(viaOpenAi).toBe('Undici pools sockets per origin.');
    expect(finish).toBe('stop');

    const exa = new Exa(t.key, t.url);
    let viaExa = '';
    let citations: { url: string }[] = [];
    for await (const chunk of exa.streamSearch('undici pool', { type: 'instant' } as never)) {
      viaExa += chunk.content ?? '';
      if (chunk.citations) citations = chunk.citations;
    }
    expect(viaExa).toBe('Undici pools sockets per origin.');
    expect(citations.map((c) => c.url)).toContain('https://docs.example.com/undici/pool');
  });

  it('cancels the model call when the client hangs up', async () => {
    model.setReply({ content: 'one two three four five six seven eight', chunkDelayMs: 300 });
    const controller = new AbortController();
    const res = await fetch(`${t.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ query: 'undici pool', type: 'instant', stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read(); // the first frame: the model has started
    const aborted = model.whenAborted();
    controller.abort();
    await aborted;
    expect(model.aborted).toBe(1);
  });

  it('answers an error before the stream starts as an ordinary error response', async () => {
    const res = await search({ query: 'undici', stream: true, outputSchema: { type: 'object' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
  });
});
