/**
 * POST /answer on the wire, through the real REST door with a model on a loopback server: the JSON
 * answer's exact fields, the SSE frames of a streamed answer, the search scope, the charge held up
 * front (a search with an answer), request validation, the OpenAPI document, and, from a server without
 * a model, an answer extracted from the sources that says so (MODEL_MISSING), whole or streamed, and 403
 * FEATURE_DISABLED for an answer shaped by an outputSchema.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerBound } from '../../src/core/accounts/bounds.js';
import { createPrices } from '../../src/core/pricing.js';
import { NO_SOURCES_ANSWER } from '../../src/core/search/answer.service.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ModelServer } from '../helpers/model-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DOCS = [
  storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps sockets open to one origin and queues requests when every socket is busy.'), // prettier-ignore
  storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin.'), // prettier-ignore
];

let model: ModelServer;
let t: TestServer;
let plain: TestServer; // no model

beforeAll(async () => {
  model = await startModelServer({ reply: 'A Pool keeps sockets open to one origin [1].' });
  t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelTimeoutMs: 3000 });
  plain = await startTestServer();
  for (const s of [t, plain]) await s.app.services.documents.upsertMany(DOCS, '2026-11-20T10:00:00.000Z');
});
afterEach(() => model.reset());
afterAll(async () => {
  await t.close();
  await plain.close();
  await model.close();
});

const answer = (s: TestServer, body: unknown, key = s.key) => postJson(s.url, '/answer', body, { 'x-api-key': key });

/** The `data:` payloads of a streamed response, in order. */
async function frames(res: Response): Promise<string[]> {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true })); // prettier-ignore
  return out.map((e) => e.data);
}

describe('POST /answer', () => {
  it('answers {requestId, answer, citations, costDollars} and nothing else', async () => {
    const res = await answer(t, { query: 'undici pool', model: 'exa', text: false, stream: false });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['answer', 'citations', 'costDollars', 'requestId']);
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.body.answer).toBe('A Pool keeps sockets open to one origin.');
    expect((res.body.citations as Json[])[0]).toEqual({
      id: 'https://docs.example.com/undici/pool',
      url: 'https://docs.example.com/undici/pool',
      title: 'Pooling in undici',
      publishedDate: null,
      author: null,
    });
    expect(Object.keys(res.body.costDollars as Json)).toEqual(['total']);
  });

  it('streams chat-completion chunks: citations first, the text, then the cost, then [DONE]', async () => {
    const res = await fetch(`${t.url}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
      body: JSON.stringify({ query: 'undici pool', stream: true, text: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = await frames(res);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Json);
    for (const c of chunks) expect(c).toMatchObject({ object: 'chat.completion.chunk', model: 'trawl-answer' });
    expect(chunks[0]!.choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }); // prettier-ignore
    expect(chunks[0]!.citations[0]).toMatchObject({ url: 'https://docs.example.com/undici/pool', text: expect.stringContaining('queues requests') }); // prettier-ignore
    expect(chunks.slice(1).some((c) => 'citations' in c)).toBe(false);
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toBe('A Pool keeps sockets open to one origin.');
    const last = chunks.at(-1)!;
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.requestId).toBe(res.headers.get('x-request-id'));
    expect(last.costDollars.total).toBeGreaterThan(0.005);
  });

  it('is a search-scope operation', async () => {
    const contentsOnly = (await t.app.services.keys.create('contents only', { scopes: ['contents'] }, null)).key;
    const res = await answer(t, { query: 'undici pool' }, contentsOnly);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ tag: 'INSUFFICIENT_SCOPE', error: expect.stringContaining('"search" scope') });
    expect(model.requests).toHaveLength(0);
  });

  it('holds a search with one model call up front (two for an object answer, which may be repaired)', () => {
    const pricing = { prices: createPrices(), modelCall: 0.01 };
    expect(answerBound({ text: false }, pricing)).toBeCloseTo(0.015, 9);
    expect(answerBound({ text: true, outputSchema: { type: 'object' } }, pricing)).toBeCloseTo(0.025, 9);
  });

  it.each([
    [{}, 'query: is required'],
    [{ query: 'x', model: 'gpt-4o' }, 'model:'],
    [{ query: 'x', numResults: 5 }, 'numResults: /answer reads the first 10 results'],
    [{ query: 'x', userLocation: 'USA' }, 'userLocation: must be a two-letter ISO country code'],
    [{ query: 'x', outputSchema: { type: 'object' } }, 'outputSchema.properties: required'],
  ])('refuses %j naming the field', async (body, message) => {
    const res = await answer(t, body);
    expect(res.status).toBe(400);
    // numResults has its own tag (INVALID_NUM_RESULTS), whatever its rule
    expect(res.body).toMatchObject({ tag: expect.stringMatching(/^INVALID_/), error: expect.stringContaining(message) }); // prettier-ignore
  });

  it('is in the OpenAPI document with its stream frame', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Json;
    const op = doc.paths['/answer'].post;
    expect(op.tags).toEqual(['search']);
    expect(op.responses['200'].content['text/event-stream'].schema.$ref).toBe('#/components/schemas/AnswerStreamFrame');
    expect(Object.keys(doc.components.schemas.AnswerRequest.properties).sort()).toEqual(
      ['model', 'outputSchema', 'query', 'stream', 'systemPrompt', 'text', 'userLocation'],
    ); // prettier-ignore
  });
});

describe('POST /answer with nothing to answer from', () => {
  it('says so without a model call, free, and why in warnings (an empty index, no provider)', async () => {
    const empty = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelTimeoutMs: 3000 });
    try {
      const res = await answer(empty, { query: 'undici pool' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ answer: NO_SOURCES_ANSWER, citations: [], costDollars: { total: 0 } });
      expect(res.body.warnings).toEqual([{ code: 'INDEX_EMPTY', message: expect.stringContaining('trawl crawl') }]);
      const streamed = await fetch(`${empty.url}/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': empty.key },
        body: JSON.stringify({ query: 'undici pool', stream: true }),
      });
      const chunks = (await frames(streamed)).slice(0, -1).map((d) => JSON.parse(d) as Json);
      expect(chunks[0]!.citations).toEqual([]);
      expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(NO_SOURCES_ANSWER);
      expect(model.requests).toHaveLength(0);
    } finally {
      await empty.close();
    }
  });
});

describe('POST /answer without a model', () => {
  it('answers with sentences extracted from the sources, and a warning that says so', async () => {
    const res = await answer(plain, { query: 'how does an undici pool keep sockets', text: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.answer).toContain('An undici Pool keeps sockets open to one origin');
    expect((res.body.citations as Json[]).map((c) => c.url)).toContain('https://docs.example.com/undici/pool');
    expect(res.body.warnings).toEqual([{ code: 'MODEL_MISSING', message: expect.stringMatching(/extractive/) }]);
  });

  it('streams the extracted answer, the warning on its last frame', async () => {
    const res = await fetch(`${plain.url}/answer`, {
      method: 'POST',
      headers: { 'x-api-key': plain.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'how does an undici pool keep sockets', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = await frames(res);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Json);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toContain('An undici Pool keeps sockets open');
    expect(chunks.at(-1)!.warnings).toEqual([{ code: 'MODEL_MISSING', message: expect.stringMatching(/extractive/) }]); // prettier-ignore
    expect(chunks.slice(0, -1).every((c) => c.warnings === undefined)).toBe(true);
  });

  it.each([false, true])(
    'refuses an outputSchema answer: 403 FEATURE_DISABLED naming the field (stream: %s)',
    async (stream) => {
      const outputSchema = { type: 'object', properties: { summary: { type: 'string' } } };
      const res = await answer(plain, { query: 'undici pool', stream, outputSchema });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body.tag).toBe('FEATURE_DISABLED');
      expect(res.body.error).toMatch(/^outputSchema: .*TRAWL_MODEL_BASE_URL and TRAWL_MODEL/);
    },
  );
});
