/**
 * Model-written summaries on /contents and /search through the real REST door: pages from the loopback
 * fixture site and the document store, the model on a loopback Chat Completions server. Query focus, the
 * bounded page text, summary.schema with one repair, failures per page (said in its status, never failing
 * the request; a MODEL_FAILED warning on /search), the cache, the concurrency bound; and, without a
 * model, extractive summaries and a refused schema.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { ARTICLE } from '../fixtures/site/articles.js';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { FETCHED_AT, storedDoc } from '../helpers/documents.js';
import { startModelServer, type ChatCompletionRequestBody, type ModelServer } from '../helpers/model-server.js';

interface Result {
  url: string;
  summary?: string;
}
interface Body {
  results: Result[];
  statuses: { id: string; status: string; message?: string }[];
  costDollars: { total: number };
  tag?: string;
  error?: string;
}

const doc = (n: number, text: string) => storedDoc(`https://pages.example.com/p${n}`, `Page ${n}`, text);
const PARAGRAPH = (i: number) =>
  `Paragraph ${i} explains step ${i} of brewing tea: warm the pot, weigh the leaves, and pour water at the right heat.`; // prettier-ignore
const LONG = storedDoc(
  'https://pages.example.com/long',
  'A long guide',
  Array.from({ length: 120 }, (_, i) => (i === 90 ? 'Zebra crossings need striped paint and a beacon on each side of the road.' : PARAGRAPH(i))).join('\n\n'), // prettier-ignore
);
const PAGES = [1, 2, 3, 4, 5, 6].map((n) => doc(n, `Page ${n} is about topic ${n}. It has a sentence or two of text.`));

let site: FixtureSite;
let model: ModelServer;
let t: TestServer;

beforeAll(async () => {
  site = await startFixtureSite();
  model = await startModelServer({ apiKey: 'sk-model-secret' });
  t = await startTestServer({ privateAllowlist: ['127.0.0.1'], modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelApiKey: 'sk-model-secret', modelTimeoutMs: 3000 }); // prettier-ignore
  await t.app.services.documents.upsertMany([LONG, ...PAGES], FETCHED_AT);
});
afterEach(() => model.reset());
afterAll(async () => {
  await t.close();
  await model.close();
  await site.close();
});

async function post(path: string, body: Record<string, unknown>, server = t) {
  const res = await postJson(server.url, path, body, { 'x-api-key': server.key });
  return { status: res.status, body: res.body as unknown as Body };
}
const user = (body: ChatCompletionRequestBody) => body.messages.find((m) => m.role === 'user')!.content;
const system = (body: ChatCompletionRequestBody) => body.messages.find((m) => m.role === 'system')!.content;
const urlOf = (body: ChatCompletionRequestBody) => /^URL: (\S+)$/m.exec(user(body))![1]!;
const pageText = (body: ChatCompletionRequestBody) => user(body).split('Page text:\n')[1]!.split('\n\nFocus: ')[0]!;

describe('/contents summaries written by the configured model', () => {
  it('summarises from the page text, focused on the query, and adds the tokens to the cost', async () => {
    model.setReply('Rust futures are lazy: nothing runs until an executor polls them.');
    const query = 'why do rust futures not run by themselves';
    const res = await post('/contents', { urls: [`${site.url}/articles/rust-async`], summary: { query } });
    expect(res.status).toBe(200);
    expect(res.body.results[0]!.summary).toBe('Rust futures are lazy: nothing runs until an executor polls them.');
    expect(model.requests).toHaveLength(1);
    const sent = model.requests[0]!.body;
    expect(user(sent)).toContain(ARTICLE.sentence);
    expect(user(sent)).toContain(`Title: ${ARTICLE.title}`);
    expect(user(sent)).toContain(`Focus: ${query}`);
    expect(system(sent)).toContain(query);
    expect(sent.response_format).toBeUndefined();
    // $0.001 for the page plus gpt-4o-mini's list price for the tokens
    expect(res.body.costDollars.total).toBeGreaterThan(0.001);
  });

  it('writes a general summary when neither summary.query nor a search query is given', async () => {
    model.setReply('A page about topic 1.');
    const res = await post('/contents', { urls: [PAGES[0]!.url], summary: true });
    expect(res.body.results[0]!.summary).toBe('A page about topic 1.');
    const sent = model.requests[0]!.body;
    expect(user(sent)).not.toContain('Focus:');
    expect(system(sent)).toContain('what the page is about');
    expect(pageText(sent)).toContain('Page 1 is about topic 1.');
  });

  it('sends a long page as its query-relevant passages and its lead, within 6000 characters', async () => {
    model.setReply('Zebra crossings need paint and beacons.');
    await post('/contents', { urls: [LONG.url], summary: { query: 'zebra crossing beacon' } });
    const text = pageText(model.requests[0]!.body);
    expect(text.length).toBeLessThanOrEqual(6000);
    expect(text.length).toBeGreaterThan(5000);
    expect(text).toContain('Zebra crossings need striped paint');
    expect(text.startsWith(PARAGRAPH(0))).toBe(true);
    expect(text).toContain('[…]');
    expect(text).not.toContain(PARAGRAPH(119));
  });

  it('returns a summary.schema summary as a JSON string, asking for structured output', async () => {
    const schema = { type: 'object', properties: { topic: { type: 'integer' }, gist: { type: 'string' } }, required: ['topic', 'gist'] }; // prettier-ignore
    model.setReply({ json: { topic: 2, gist: 'topic two' } });
    const res = await post('/contents', { urls: [PAGES[1]!.url], summary: { query: 'which topic', schema } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.results[0]!.summary!)).toEqual({ topic: 2, gist: 'topic two' });
    const format = model.requests[0]!.body.response_format!;
    expect(format.type).toBe('json_schema');
    expect(format.json_schema).toMatchObject({ name: 'summary', schema });
  });

  it('asks once for a repair of invalid JSON; invalid twice leaves that page without a summary, saying why', async () => {
    const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    model.enqueue('not json at all', { json: { count: 3 } });
    const repaired = await post('/contents', { urls: [PAGES[2]!.url], summary: { schema } });
    expect(JSON.parse(repaired.body.results[0]!.summary!)).toEqual({ count: 3 });
    expect(model.requests).toHaveLength(2);
    expect(user(model.requests[1]!.body)).toContain(PAGES[2]!.text);
    expect(model.requests[1]!.body.messages.at(-1)!.content).toMatch(/not valid.*JSON/);

    model.reset();
    model.setReply((body) => ({ json: { count: urlOf(body) === PAGES[3]!.url ? 'four' : 5 } }));
    const mixed = await post('/contents', { urls: [PAGES[3]!.url, PAGES[4]!.url], summary: { schema } });
    expect(mixed.status).toBe(200);
    expect(mixed.body.statuses.map((s) => s.status)).toEqual(['success', 'success']);
    expect(mixed.body.results[0]).not.toHaveProperty('summary');
    expect(JSON.parse(mixed.body.results[1]!.summary!)).toEqual({ count: 5 });
    expect(model.requests).toHaveLength(3);

    const alone = await post('/contents', { urls: [PAGES[3]!.url], summary: { schema } });
    expect(alone.status).toBe(200);
    expect(alone.body.results[0]).not.toHaveProperty('summary');
    expect(alone.body.statuses[0]).toMatchObject({ status: 'success' });
    expect(alone.body.statuses[0]!.message).toMatch(/summary could not be written: .*summary\.schema.*\/count must be integer/); // prettier-ignore
  });

  it('keeps a result without a summary when the model fails for its page, and never leaks the key or the address', async () => {
    model.setReply((body) => (urlOf(body) === PAGES[0]!.url ? { status: 401 } : 'Fine summary.'));
    const res = await post('/contents', { urls: [PAGES[0]!.url, PAGES[1]!.url], summary: { query: 'failing' } });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).not.toHaveProperty('summary');
    expect(res.body.results[1]!.summary).toBe('Fine summary.');

    model.setReply({ status: 401 });
    // another query, so the summary written above is not a cache hit
    const all = await post('/contents', { urls: [PAGES[0]!.url, PAGES[1]!.url], summary: { query: 'all failing' } });
    expect(all.status).toBe(200);
    expect(all.body.results.map((r) => 'summary' in r)).toEqual([false, false]);
    const messages = all.body.statuses.map((s) => s.message ?? '');
    for (const message of messages) {
      expect(message).toMatch(/^The summary could not be written: the language model failed \(HTTP 401\); the server log has the details under requestId [0-9a-f]{32}\.$/); // prettier-ignore
    }
    expect(JSON.stringify(all.body)).not.toContain('sk-model-secret');
    expect(JSON.stringify(all.body)).not.toContain(new URL(model.baseUrl).host);
  });

  it('answers a repeated request from the cache: no model call, no token cost', async () => {
    model.setReply((body) => `Summary of ${urlOf(body)}.`);
    const body = { urls: [PAGES[4]!.url, PAGES[5]!.url], summary: { query: 'cache me' } };
    const first = await post('/contents', body);
    expect(model.requests).toHaveLength(2);
    expect(first.body.costDollars.total).toBeGreaterThan(0.002);
    const second = await post('/contents', body);
    expect(model.requests).toHaveLength(2);
    expect(second.body.results.map((r) => r.summary)).toEqual(first.body.results.map((r) => r.summary));
    expect(second.body.costDollars.total).toBe(0.002);
    // another focus is another summary
    await post('/contents', { ...body, summary: { query: 'something else' } });
    expect(model.requests).toHaveLength(4);
  });

  it('runs at most 4 model calls at once', async () => {
    let active = 0;
    let most = 0;
    model.setReply(async (body) => {
      most = Math.max(most, ++active);
      await new Promise((resolve) => setTimeout(resolve, 150));
      active--;
      return `Concurrent summary of ${urlOf(body)}.`;
    });
    const res = await post('/contents', { urls: PAGES.map((p) => p.url), summary: { query: 'how many at once' } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r) => r.summary)).toEqual(PAGES.map((p) => `Concurrent summary of ${p.url}.`));
    expect(model.requests).toHaveLength(6);
    expect(most).toBe(4);
  });
});

describe('/search contents.summary with the configured model', () => {
  it('focuses each summary on the search query', async () => {
    model.setReply((body) => `About ${urlOf(body)}.`);
    const res = await post('/search', { query: 'topic 3 sentence', type: 'instant', numResults: 2, contents: { summary: true } }); // prettier-ignore
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r.summary).toBe(`About ${r.url}.`);
    for (const sent of model.requests) expect(user(sent.body)).toContain('Focus: topic 3 sentence');
    // the summaries' tokens are in the search's price, on top of the search itself ($0.005)
    expect(res.body.costDollars.total).toBeGreaterThan(0.005);
  });

  it('answers the results without summaries when the model fails, with a MODEL_FAILED warning', async () => {
    model.setReply({ status: 401 });
    const res = await post('/search', { query: 'topic 4 sentence', type: 'instant', numResults: 2, contents: { summary: { query: 'failing again' } } }); // prettier-ignore
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    for (const r of res.body.results) expect(r).not.toHaveProperty('summary');
    const warnings = (res.body as unknown as { warnings: { code: string; message: string }[] }).warnings;
    expect(warnings.map((w) => w.code)).toEqual(['MODEL_FAILED']);
    expect(warnings[0]!.message).toMatch(/\(the language model failed \(HTTP 401\); the server log has the details under requestId [0-9a-f]{32}\)$/); // prettier-ignore
  });
});

describe('without a model', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ privateAllowlist: ['127.0.0.1'] });
    await plain.app.services.documents.upsertMany(PAGES, FETCHED_AT);
  });
  afterAll(() => plain.close());

  it('gives an extractive summary', async () => {
    const res = await post('/contents', { urls: [`${site.url}/articles/rust-async`], summary: { query: 'polled' } }, plain); // prettier-ignore
    expect(res.status).toBe(200);
    expect(res.body.results[0]!.summary).toContain(ARTICLE.sentence);
  });

  it('refuses summary.schema before any fetch, naming TRAWL_MODEL_BASE_URL', async () => {
    const schema = { type: 'object', properties: { gist: { type: 'string' } } };
    const before = site.hits('/docs/getting-started');
    const res = await post('/contents', { urls: [`${site.url}/docs/getting-started`], summary: { schema } }, plain);
    expect(res.status).toBe(403);
    expect(res.body.tag).toBe('FEATURE_DISABLED');
    expect(res.body.error).toContain('TRAWL_MODEL_BASE_URL');
    expect(site.hits('/docs/getting-started')).toBe(before);
    const search = await post('/search', { query: 'topic', type: 'instant', contents: { summary: { schema } } }, plain);
    expect(search.status).toBe(403);
    expect(search.body.tag).toBe('FEATURE_DISABLED');
  });
});

describe('a model that times out', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startTestServer({ modelBaseUrl: model.baseUrl, model: 'gpt-4o-mini', modelApiKey: 'sk-model-secret', modelTimeoutMs: 1000 }); // prettier-ignore
    await slow.app.services.documents.upsertMany(PAGES, FETCHED_AT);
  });
  afterAll(() => slow.close());

  it('leaves that page without a summary and answers the others', async () => {
    model.setReply((body) => (urlOf(body) === PAGES[0]!.url ? { content: 'late', delayMs: 2000 } : 'On time.'));
    const res = await post('/contents', { urls: [PAGES[0]!.url, PAGES[1]!.url], summary: { query: 'slow' } }, slow);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).not.toHaveProperty('summary');
    expect(res.body.statuses[0]!.message).toMatch(/^The summary could not be written: the language model failed \(/);
    expect(res.body.results[1]!.summary).toBe('On time.');
  });
});
