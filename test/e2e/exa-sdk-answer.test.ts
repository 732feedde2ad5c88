/**
 * exa-js 2.23's answer methods against Trawl by changing only the base URL: `answer` (text, page texts,
 * an object schema, a system prompt, a location) and `streamAnswer` read as the SDK reads them, and
 * `streamSearch` beside them; answers written by a model on a loopback server, priced as a search plus
 * the model's tokens and charged to the key under the `answer` operation.
 */
import { Exa } from 'exa-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { startModelServer, type ChatCompletionRequestBody, type ModelServer } from '../helpers/model-server.js';

const DOCS = [
  storedDoc('https://docs.example.com/undici/pool', 'Pooling in undici', 'An undici Pool keeps up to connections sockets open to one origin. Requests queue when every socket is busy.', { publishedDate: '2024-03-01T00:00:00.000Z', author: 'Undici team' }), // prettier-ignore
  storedDoc('https://blog.example.com/undici-agent', 'The undici Agent', 'The undici Agent holds one Pool per origin and picks it by the request origin.'), // prettier-ignore
  storedDoc('https://other.example.org/cooking', 'Cooking pasta', 'Boil water, add salt, cook the pasta for nine minutes.'), // prettier-ignore
];
const REPLY = 'An undici Pool keeps sockets open to one origin [1]. The Agent holds one Pool per origin [2].';
const ANSWER = 'An undici Pool keeps sockets open to one origin. The Agent holds one Pool per origin.';

let model: ModelServer;
let t: TestServer;
let exa: Exa;
let keyId: string;

beforeAll(async () => {
  model = await startModelServer({ reply: REPLY });
  t = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelTimeoutMs: 3000 });
  await t.app.services.documents.upsertMany(DOCS, '2026-11-20T10:00:00.000Z');
  const made = await t.app.services.keys.create('answers', { scopes: ['search'] }, null);
  keyId = made.id;
  exa = new Exa(made.key, t.url);
});
afterEach(() => model.reset());
afterAll(async () => {
  await t.close();
  await model.close();
});

/** What a search of 1-10 results plus the model's tokens cost (gpt-4o-mini: $0.15 and $0.60 per million). */
function expectedCost(): number {
  const tokens = (s: string) => Math.ceil(s.length / 4); // as the model server counts them
  const [request] = model.requests;
  const prompt = tokens(request!.body.messages.map((m) => m.content).join(''));
  const completion = tokens(REPLY);
  return Math.round((0.005 + (prompt * 0.15 + completion * 0.6) / 1e6) * 1e6) / 1e6;
}

const spentOnAnswers = async () =>
  (await t.app.services.accounts.teams.usage(Date.now(), null)).find((line) => line.keyId === keyId)?.byOperation
    .answer ?? 0;

const lastUser = (body: ChatCompletionRequestBody) => body.messages.filter((m) => m.role === 'user').at(-1)!.content;

describe('exa.answer', () => {
  it('answers in text with the search results as citations, priced as a search with an answer', async () => {
    const before = await spentOnAnswers();
    const res = await exa.answer('how does undici pool connections');
    expect(res.answer).toBe(ANSWER);
    expect(res.requestId).toMatch(/^[0-9a-f]{32}$/);
    const urls = res.citations.map((c) => c.url);
    expect(urls.slice(0, 2).sort()).toEqual(['https://blog.example.com/undici-agent', 'https://docs.example.com/undici/pool']); // prettier-ignore
    const pool = res.citations.find((c) => c.url === 'https://docs.example.com/undici/pool')!;
    expect(pool).toMatchObject({
      id: 'https://docs.example.com/undici/pool',
      title: 'Pooling in undici',
      publishedDate: '2024-03-01T00:00:00.000Z',
      author: 'Undici team',
    });
    expect('text' in pool).toBe(false);
    // the model read the sources' passages, numbered as the citations are
    expect(lastUser(model.requests[0]!.body)).toContain('[1] ');
    expect(model.requests).toHaveLength(1);
    expect(res.costDollars?.total).toBe(expectedCost());
    expect((await spentOnAnswers()) - before).toBeCloseTo(res.costDollars!.total, 6);
  });

  it("gives each citation its page's text with text: true", async () => {
    const res = await exa.answer('undici pool sockets', { text: true });
    expect(res.citations.length).toBeGreaterThan(0);
    // exa-js types answer citations as SearchResult<{}>, without text; the wire carries it
    const pool = res.citations.find((c) => c.url === 'https://docs.example.com/undici/pool') as { text?: string };
    expect(pool.text).toContain('Requests queue when every socket is busy.');
  });

  it('answers an object following outputSchema, with the system prompt and location passed on', async () => {
    model.setReply({ json: { content: { origin: 'one origin', queues: true }, citations: { origin: [1], queues: [1] } } }); // prettier-ignore
    const res = await exa.answer('how does an undici pool behave', {
      outputSchema: {
        type: 'object',
        properties: { origin: { type: 'string' }, queues: { type: 'boolean' } },
        required: ['origin', 'queues'],
        additionalProperties: false,
      },
      systemPrompt: 'Answer for a Node.js beginner.',
      userLocation: 'US',
    });
    expect(res.answer).toEqual({ origin: 'one origin', queues: true });
    const sent = model.requests[0]!.body;
    expect(sent.response_format?.type).toBe('json_schema');
    expect(JSON.stringify(sent.messages)).toContain('Answer for a Node.js beginner.');
    expect(res.citations.length).toBeGreaterThan(0);
  });

  it('surfaces a failing model as an error with its status, charging nothing', async () => {
    const before = await spentOnAnswers();
    model.setReply({ status: 401 }); // permanent: not retried
    const err = (await exa.answer('undici pool').catch((e: unknown) => e)) as { statusCode: number; message: string };
    expect(err.statusCode).toBe(500);
    expect(err.message).toMatch(/the language model failed \(HTTP 401\)/);
    expect(await spentOnAnswers()).toBe(before);
  });
});

describe('exa.streamAnswer and exa.streamSearch', () => {
  it('streams the answer as the SDK reads it: citations first, then the text', async () => {
    const before = await spentOnAnswers();
    const chunks: { content?: string; citations?: { url: string; title?: string; text?: string }[] }[] = [];
    for await (const chunk of exa.streamAnswer('how does undici pool connections')) chunks.push(chunk);
    expect(chunks[0]!.citations?.map((c) => c.url)).toContain('https://docs.example.com/undici/pool');
    expect(chunks[0]!.citations?.[0]?.title).toBeTruthy();
    expect(chunks.filter((c) => c.citations)).toHaveLength(1);
    expect(chunks.map((c) => c.content ?? '').join('')).toBe(ANSWER);
    expect(chunks.length).toBeGreaterThan(2); // the text arrives in pieces
    expect((await spentOnAnswers()) - before).toBeCloseTo(expectedCost(), 6);
  });

  it('streams citations with their text when text: true', async () => {
    let citations: { url: string; text?: string }[] = [];
    for await (const chunk of exa.streamAnswer('undici pool sockets', { text: true })) {
      if (chunk.citations) citations = chunk.citations;
    }
    expect(citations.find((c) => c.url === 'https://docs.example.com/undici/pool')?.text).toContain('sockets open');
  });

  it('streams a search answer with streamSearch', async () => {
    let text = '';
    let citations: { url: string }[] = [];
    for await (const chunk of exa.streamSearch('undici pool', { type: 'fast' } as never)) {
      text += chunk.content ?? '';
      if (chunk.citations) citations = chunk.citations;
    }
    expect(text).toBe(ANSWER);
    expect(citations.map((c) => c.url)).toContain('https://docs.example.com/undici/pool');
  });
});
