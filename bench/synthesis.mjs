// Synthesis figures: what an answer costs beyond the model's own time, for text and object outputs; how
// soon a streamed chunk reaches the caller after the model's first token; and how many tokens an answer
// sends the model at numResults 10. Trawl runs in this process (built app, real HTTP door on loopback)
// over BEIR SciFact (5,183 abstracts, read in place) with a loopback model that speaks the Chat
// Completions wire format and answers at once, so what is measured is Trawl's part.
// Usage: npm run build && node bench/synthesis.mjs [--queries 60]
// Last line: `synthesis_text_overhead_ms=… synthesis_object_overhead_ms=… stream_first_chunk_ms=… prompt_tokens=…`
import http from 'node:http';
import path from 'node:path';
import { HOST, ROOT, fetchedDocument, fmt, machineLine, makeTmpDir, mdTable, percentile, readJsonlGz, readTsv, removeTmpDir, requireBuild } from './lib.mjs'; // prettier-ignore

requireBuild();
const args = process.argv.slice(2);
const QUERIES = Number(args[args.indexOf('--queries') + 1] || 60);
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const dist = (p) => path.join(ROOT, 'dist', p);
const { loadConfig } = await import(dist('config/config.js'));
const { createApp } = await import(dist('compose/app.js'));
const { startHttpServer } = await import(dist('http/server.js'));
const { createLogger } = await import(dist('lib/logger.js'));

const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz'));
const queries = readTsv(path.join(SCIFACT, 'queries.tsv'))
  .map((q) => q.text)
  .slice(0, QUERIES);

// ---------------------------------------------------------------------------------------------------
// A model that answers at once: the answer cites [1] and [2]; object requests get the envelope. It
// records, per request, the prompt's size and when it wrote its first streamed token.

const model = { prompts: [], firstTokenAt: [], handleMs: [] };
const CHUNK_GAP_MS = 5;
const modelServer = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', async () => {
    const started = performance.now();
    const request = JSON.parse(body);
    const prompt = request.messages.map((m) => m.content).join('\n');
    model.prompts.push(prompt);
    const object = request.response_format?.type === 'json_schema';
    const planning = request.response_format?.json_schema?.name === 'plan';
    const question = /Question: (.*)/.exec(prompt)?.[1]?.split(/\s+/) ?? [];
    const content = planning
      ? JSON.stringify({ queries: [question.slice(0, 4).join(' '), question.slice(-4).join(' '), question.slice(2, 6).join(' ')] }) // prettier-ignore
      : object
        ? JSON.stringify({ content: { finding: 'The claim is supported.', strength: 'moderate' }, citations: { finding: [1, 2], strength: [1] } }) // prettier-ignore
        : 'The sources support the claim in part [1]. A second study disagrees on the effect size [2].';
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4) };
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: request.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage })); // prettier-ignore
      model.handleMs.push(performance.now() - started);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const words = content.split(/(?<= )/);
    for (let i = 0; i < words.length; i++) {
      const chunk = { id: 'x', object: 'chat.completion.chunk', model: request.model, choices: [{ index: 0, delta: { content: words[i] }, finish_reason: null }] }; // prettier-ignore
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (i === 0) model.firstTokenAt.push(performance.now());
      await new Promise((r) => setTimeout(r, CHUNK_GAP_MS));
    }
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: request.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\n`); // prettier-ignore
    res.end('data: [DONE]\n\n');
  });
});
await new Promise((resolve) => modelServer.listen(0, HOST, resolve));
const modelUrl = `http://${HOST}:${modelServer.address().port}/v1`;

// ---------------------------------------------------------------------------------------------------

const dir = makeTmpDir('trawl-bench-synthesis-');
const config = loadConfig({}, { dataDir: dir, port: 0, logLevel: 'silent', modelBaseUrl: modelUrl, model: 'bench-model', rateLimitQps: 0 }); // prettier-ignore
const app = createApp(config, { logger: createLogger('silent') });
const now = new Date().toISOString();
const docs = corpus.map(
  (d) =>
  fetchedDocument({ url: `https://scifact.example/${d._id}`, title: d.title ?? '', text: d.text ?? '', contentHash: `s:${d._id}`, fetchedAt: now }), // prettier-ignore
);
for (let i = 0; i < docs.length; i += 500) await app.services.documents.upsertMany(docs.slice(i, i + 500), now);
const server = await startHttpServer(app, HOST, 0);
const key = (await app.services.keys.create('bench')).key;

async function post(body) {
  const t = performance.now();
  const res = await fetch(`${server.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return { ms: performance.now() - t, json };
}

/** Time to the first text frame, and to the end, of a streamed search. */
async function streamed(body) {
  const t = performance.now();
  const res = await fetch(`${server.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let firstText;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    if (firstText === undefined && /"delta":\{"content":"[^"]/.test(buffer)) firstText = performance.now();
  }
  return { firstText, total: performance.now() - t };
}

const OBJECT_SCHEMA = {
  type: 'object',
  properties: { finding: { type: 'string' }, strength: { type: 'string' } },
  required: ['finding'],
};
const base = (q) => ({ query: q, type: 'instant', numResults: 10 });

const rows = { plain: [], text: [], object: [], firstChunk: [], prompt: [], chars: [] };
for (const q of queries.slice(0, 5)) await post({ ...base(q), outputSchema: { type: 'text' } }); // warm-up
model.prompts.length = 0;
model.handleMs.length = 0;
for (const q of queries) {
  rows.plain.push((await post(base(q))).ms);
  const text = await post({ ...base(q), outputSchema: { type: 'text' } });
  rows.text.push(text.ms - model.handleMs.at(-1));
  rows.chars.push(model.prompts.at(-1).length);
  rows.prompt.push(Math.ceil(model.prompts.at(-1).length / 4));
  rows.object.push((await post({ ...base(q), outputSchema: OBJECT_SCHEMA })).ms - model.handleMs.at(-1));
  const s = await streamed(base(q));
  rows.firstChunk.push(s.firstText - model.firstTokenAt.at(-1));
}
// the deep types with a model: planning (and deep-reasoning's follow-up round) before the answer
const DEEP = ['deep-lite', 'deep', 'deep-reasoning'];
const deep = Object.fromEntries(DEEP.map((type) => [type, { ms: [], calls: [] }]));
for (const q of queries) {
  for (const type of DEEP) {
    const before = model.prompts.length;
    deep[type].ms.push((await post({ query: q, type, numResults: 10, outputSchema: { type: 'text' } })).ms);
    deep[type].calls.push(model.prompts.length - before);
  }
}
const p50 = (values) => percentile(Float64Array.from(values).sort(), 50);
const p90 = (values) => percentile(Float64Array.from(values).sort(), 90);
const plain = p50(rows.plain);
const chars = rows.chars;

console.log(
  [
    '## Synthesis (bench/synthesis.mjs)',
    '',
    machineLine(),
    '',
    `Command: \`npm run build && node bench/synthesis.mjs\`. ${corpus.length} SciFact abstracts stored; the first ` +
      `${queries.length} SciFact queries, \`type: "instant"\`, \`numResults: 10\`; Trawl in this process behind its ` +
      'HTTP door; a loopback Chat Completions server that answers at once (its own handling time is subtracted).',
    '',
    mdTable(
      ['measurement', 'p50', 'p90'],
      [
        ['`/search` without an answer, ms', fmt(plain, 2), fmt(p90(rows.plain), 2)],
        ['`/search` + text answer, minus the model’s time, ms', fmt(p50(rows.text), 2), fmt(p90(rows.text), 2)],
        ['`/search` + object answer (validated), minus the model’s time, ms', fmt(p50(rows.object), 2), fmt(p90(rows.object), 2)], // prettier-ignore
        ['synthesis overhead, text (the row above minus the plain search), ms', fmt(p50(rows.text) - plain, 2), ''],
        ['synthesis overhead, object, ms', fmt(p50(rows.object) - plain, 2), ''],
        ['first streamed text frame after the model’s first token, ms', fmt(p50(rows.firstChunk), 2), fmt(p90(rows.firstChunk), 2)], // prettier-ignore
        ['prompt sent to the model, characters', fmt(p50(chars), 0), fmt(p90(chars), 0)],
        ['prompt sent to the model, tokens (≈ characters / 4)', fmt(p50(rows.prompt), 0), fmt(p90(rows.prompt), 0)],
      ],
    ),
    '',
    'Deep types with the model planning their searches, then a text answer (no web providers; the model answers at once):', // prettier-ignore
    '',
    mdTable(
      ['type', 'p50 ms', 'p90 ms', 'model calls per search'],
      DEEP.map((type) => [type, fmt(p50(deep[type].ms), 2), fmt(p90(deep[type].ms), 2), fmt(p50(deep[type].calls), 0)]),
    ),
    '',
    'Overhead: gathering the sources (highlights of the 10 results through the contents pipeline), the ' +
      'prompt, the HTTP call to the model, parsing, validation and grounding. The prompt holds each ' +
      "result's title, URL and at most 1,200 characters of query-focused highlights, never whole pages.",
    '',
    `synthesis_text_overhead_ms=${fmt(p50(rows.text) - plain, 2)} synthesis_object_overhead_ms=${fmt(p50(rows.object) - plain, 2)} ` + // prettier-ignore
      `stream_first_chunk_ms=${fmt(p50(rows.firstChunk), 2)} prompt_tokens=${fmt(p50(rows.prompt), 0)}`,
  ].join('\n'),
);

await server.close();
await app.close();
modelServer.close();
removeTmpDir(dir);
process.exit(0);
