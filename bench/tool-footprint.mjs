// What the MCP door costs an agent, in o200k_base tokens (gpt-tokenizer) and bytes: the `tools` array
// of tools/list (per tool, the default set, every tool), and real answers: `search` with 10 results and
// their text on BEIR SciFact, `get_contents` on a 300 KB page, `get_code_context` at its default budget
// (this repository's src/ indexed), each followed to its last part by cursor. A result counts its text
// and its structuredContent. With `--baseline DIR` (a built checkout of an earlier commit, e.g. made with
// `git worktree add`), its tools/list is measured beside this one.
// Usage: npm run build && node bench/tool-footprint.mjs [--baseline DIR]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CLI, ROOT, childEnv, fetchedDocument, fmt, machineLine, makeTmpDir, mdTable, ratio, readJsonlGz, readTsv, requireBuild, spawnTracked } from './lib.mjs'; // prettier-ignore

const DEFAULT_BUDGET = 1500;
const ALL_BUDGET = 6000;
const ANSWER_BUDGET = 6000;
const QUERIES = 20;
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const baselineAt = process.argv.indexOf('--baseline');
const BASELINE = baselineAt > 0 ? path.resolve(process.argv[baselineAt + 1] ?? '') : null;

requireBuild();
const tokens = (value) => countTokens(typeof value === 'string' ? value : JSON.stringify(value));
const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** A client connected in memory to a server built by `distDir`'s buildMcpServer on `app`. */
async function connect(distDir, app, options) {
  const { buildMcpServer } = await import(path.join(distDir, 'mcp', 'server.js'));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(app, { caller: null, betas: new Set(), ...options }).connect(serverSide);
  const client = new Client({ name: 'tool-footprint', version: '1' });
  await client.connect(clientSide);
  return client;
}

/** An app of `distDir` on a fresh data directory. */
async function appOf(distDir, settings = {}) {
  const { createApp } = await import(path.join(distDir, 'compose/app.js'));
  const { loadConfig } = await import(path.join(distDir, 'config', 'config.js'));
  const dir = makeTmpDir();
  return { dir, app: createApp(loadConfig({}, { dataDir: dir, logLevel: 'silent', rateLimitQps: 0, ...settings })) };
}

/** tools/list of a server: per tool tokens and bytes, and the whole array's. */
async function listTools(distDir, app, options) {
  const client = await connect(distDir, app, options);
  const { tools } = await client.listTools();
  await client.close();
  return { tools, total: tokens(tools), bytes: bytes(tools) };
}

/** Calls a tool and follows its cursor to the end: tokens of each part. */
async function answerParts(client, name, args) {
  const parts = [];
  let cursor;
  do {
    const res = await client.callTool({ name, arguments: { ...args, ...(cursor ? { cursor } : {}) } });
    if (res.isError) throw new Error(`${name}: ${res.content[0]?.text}`);
    parts.push(tokens(res.content[0].text) + tokens(res.structuredContent ?? {}));
    cursor = res.structuredContent?.nextCursor;
  } while (cursor && parts.length < 500);
  return parts;
}

/** A loopback page of about 300 KB of article text. */
async function bigPageServer() {
  const para = (i) => `<p>Paragraph ${i}: the event loop runs timers, pending callbacks, poll, check and close phases in order; each phase has a FIFO queue of callbacks to run.</p>`; // prettier-ignore
  const html = `<html><head><title>Event loop</title></head><body><main><h1>The event loop</h1>${Array.from({ length: 2100 }, (_, i) => para(i)).join('')}</main></body></html>`; // prettier-ignore
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/event-loop`, size: html.length };
}

async function main() {
  console.log(`# MCP tool footprint\n\n${machineLine()}\n`);
  const dist = path.join(ROOT, 'dist');
  const { app, dir } = await appOf(dist, { allowPrivateNetwork: true });
  const { ALL_TOOLS } = await import(path.join(dist, 'mcp', 'catalog.js'));
  const byDefault = await listTools(dist, app, {});
  const all = await listTools(dist, app, { tools: ALL_TOOLS });
  const rows = all.tools.map((t) => [t.name, byDefault.tools.some((d) => d.name === t.name) ? 'yes' : 'opt-in', tokens(t), bytes(t)]); // prettier-ignore
  console.log('## tools/list\n');
  console.log(mdTable(['tool', 'default', 'tokens', 'bytes'], rows));
  const totals = [
    ['default set', byDefault.tools.length, byDefault.total, byDefault.bytes, `≤ ${DEFAULT_BUDGET}`],
    ['every tool', all.tools.length, all.total, all.bytes, `≤ ${ALL_BUDGET}`],
  ];
  if (BASELINE) {
    const base = await appOf(path.join(BASELINE, 'dist'));
    const old = await listTools(path.join(BASELINE, 'dist'), base.app, {});
    await base.app.close();
    totals.push([`baseline (${path.basename(BASELINE)}, its default)`, old.tools.length, old.total, old.bytes, '']);
    totals.push(['default set vs baseline', '', ratio(byDefault.total, old.total), ratio(byDefault.bytes, old.bytes), '']); // prettier-ignore
  }
  console.log(`\n${mdTable(['tools/list', 'tools', 'tokens', 'bytes', 'budget'], totals)}\n`);

  // answers on real data
  const client = await connect(dist, app, { tools: ALL_TOOLS });
  const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz'));
  const now = new Date().toISOString();
  for (let i = 0; i < corpus.length; i += 500) {
    const docs = corpus.slice(i, i + 500).map((d) => fetchedDocument({ url: `https://scifact.example/${d._id}`, title: d.title ?? '', text: d.text ?? '', contentHash: d._id, fetchedAt: now })); // prettier-ignore
    await app.services.documents.upsertMany(docs, now);
  }
  const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).slice(0, QUERIES);
  const measures = [];
  const measure = async (what, name, argsList) => {
    const runs = [];
    for (const args of argsList) runs.push(await answerParts(client, name, { ...args, maxTokens: ANSWER_BUDGET }));
    const firsts = runs.map((r) => r[0]);
    const max = Math.max(...runs.flat());
    measures.push([what, runs.length, fmt(median(firsts), 0), fmt(median(runs.map((r) => r.length)), 0), max, max <= ANSWER_BUDGET ? 'yes' : 'NO']); // prettier-ignore
  };
  await measure('search, 10 results, default contents (1,500 chars of text each)', 'search', queries.map((q) => ({ query: q.text, numResults: 10 }))); // prettier-ignore
  await measure('search, 10 results, whole text', 'search', queries.map((q) => ({ query: q.text, numResults: 10, contents: { text: true } }))); // prettier-ignore
  const page = await bigPageServer();
  await measure(`get_contents, one ${fmt(page.size / 1024, 0)} KB page`, 'get_contents', [{ urls: [page.url] }]);
  page.server.close();
  const indexing = spawnTracked(process.execPath, [CLI, 'index', path.join(ROOT, 'src'), '--data-dir', dir], { env: childEnv() }); // prettier-ignore
  const { code } = await indexing.exited;
  if (code !== 0) throw new Error(`trawl index exited ${code}`);
  const codeQueries = ['how is a tool answer cut into parts within a token budget', 'retry a webhook delivery with backoff', 'parse the robots.txt of a site', 'rank documents with BM25'].map((query) => ({ query })); // prettier-ignore
  await measure('get_code_context, default tokensNum (this repository indexed)', 'get_code_context', codeQueries);
  console.log(`## Answers (budget ${ANSWER_BUDGET} tokens: text + structuredContent, each part)\n`);
  console.log(mdTable(['answer', 'calls', 'median tokens, first part', 'median parts', 'largest part', 'within budget'], measures)); // prettier-ignore
  await client.close();
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`\nCommand: \`node bench/tool-footprint.mjs${BASELINE ? ' --baseline DIR' : ''}\``);
  console.log(`Result: tools/list ${byDefault.total} tokens by default (budget ${DEFAULT_BUDGET}), ${all.total} with every tool (budget ${ALL_BUDGET}); every answer part within ${ANSWER_BUDGET}.`); // prettier-ignore
}

await main();
