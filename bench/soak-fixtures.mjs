// Loopback stand-ins for what a soaked Trawl talks to, and the private PostgreSQL cluster it runs on
// (bench/soak.mjs): a fixture site (cached and fresh pages), an OpenAI-compatible model, a SearXNG
// instance (JSON API), a webhook receiver that checks every `Svc-Signature`, and a PostgreSQL 15 cluster
// of its own (initdb in a temp dir, a free port) that the soak may restart without disturbing anyone.
import { execFile, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HOST } from './lib.mjs';

const listen = (server) =>
  new Promise((resolve) => server.listen(0, HOST, () => resolve(`http://${HOST}:${server.address().port}`)));

/** A free TCP port on the loopback (bound, then released). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

// ---------------------------------------------------------------------------------------------------
// The site: /p/<n> are the pages the soak keeps cached, /fresh/<id> a page no one has seen (a cache miss,
// with a word of its own), /web/<n> what the loopback SearXNG points at. Counts its hits.

const WORDS = 'proxy pool socket stream buffer cache lease replica index segment merge queue worker shard'.split(' ');

function page(title, body) {
  const paragraphs = body.map((p) => `<p>${p}</p>`).join('');
  return `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs}</article></body></html>`; // prettier-ignore
}

/** The HTML of a path of the site, or undefined (404). Deterministic: a page is the same on every fetch. */
export function sitePage(p) {
  let m = /^\/(p|web)\/(\d+)$/.exec(p);
  if (m) {
    const n = Number(m[2]);
    const topic = `${WORDS[n % WORDS.length]} ${WORDS[(n * 7 + 3) % WORDS.length]}`;
    return page(`Notes on the ${topic} (${m[1]} ${n})`, [
      `How a ${topic} behaves under load, part ${n}: the connection ${WORDS[(n + 5) % WORDS.length]} and its limits.`,
      `A second paragraph about the ${topic}, so the extractor keeps the article as the main content of page ${n}.`,
    ]);
  }
  m = /^\/fresh\/([\w-]+)$/.exec(p);
  if (m) {
    return page(`Fresh page ${m[1]}`, [
      `This page carries the word zq${m[1].replace(/\W/g, '')}x, fetched once by the soak as a cache miss.`,
      'It has a second paragraph so that the extractor keeps it as the main content of the page.',
    ]);
  }
  return undefined;
}

export async function startFixtureSite() {
  const hits = { pages: 0, fresh: 0, other: 0 };
  const server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const html = sitePage(p);
    if (!html) {
      hits.other++;
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
    hits[p.startsWith('/fresh/') ? 'fresh' : 'pages']++;
    const body = Buffer.from(html);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  const base = await listen(server);
  return { base, hits, close: () => closeServer(server) };
}

// ---------------------------------------------------------------------------------------------------
// SearXNG's JSON API (`GET /search?q=…&format=json&pageno=N`): five results on the fixture site per page,
// three pages, then none. `GET /config` answers for `trawl doctor`.

export async function startSearxng(siteBase) {
  const counts = { searches: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/config') return json({ instance_name: 'soak', engines: [] });
    if (url.pathname !== '/search') return void res.writeHead(404).end();
    counts.searches++;
    const q = url.searchParams.get('q') ?? '';
    const pageNo = Number(url.searchParams.get('pageno') ?? '1');
    const seed = [...q].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
    const results =
      pageNo > 3
        ? []
        : Array.from({ length: 5 }, (_, i) => {
            const n = (seed + pageNo * 5 + i) % 200;
            return { url: `${siteBase}/web/${n}`, title: `Web result ${n} for ${q.slice(0, 40)}`, content: `About ${q.slice(0, 60)}.`, engine: 'soak', engines: ['soak'], score: 1 / (i + 1) }; // prettier-ignore
          });
    json({ query: q, number_of_results: results.length, results, unresponsive_engines: [] });
  });
  const base = await listen(server);
  return { base, counts, close: () => closeServer(server) };
}

// ---------------------------------------------------------------------------------------------------
// An OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`, `GET /v1/models`) answering
// after `delayMs`: a plan as JSON when asked for one (response_format json_schema), else a cited answer;
// SSE when `stream: true`.

export async function startModel({ delayMs = 30 } = {}) {
  const counts = { calls: 0, failures: 0 };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'soak-model', object: 'model' }] })); // prettier-ignore
    }
    if (url.pathname !== '/v1/chat/completions') return void res.writeHead(404).end();
    const raw = await readBody(req);
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      counts.failures++;
      return void res.writeHead(400).end();
    }
    counts.calls++;
    await new Promise((r) => setTimeout(r, delayMs));
    const prompt = (body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const format = body.response_format;
    const question = (/Question: (.*)/.exec(prompt)?.[1] ?? 'connection pool').split(/\s+/);
    let content;
    if (format?.json_schema?.name === 'plan')
      content = JSON.stringify({ queries: [question.slice(0, 4).join(' '), question.slice(-3).join(' ')] }); // prettier-ignore
    else if (format?.type === 'json_schema' || format?.type === 'json_object')
      content = JSON.stringify({ answer: 'A pool keeps sockets open [1].' }); // prettier-ignore
    else content = 'A pool keeps sockets open to one origin and reuses them [1]. Limits bound it under load [2].';
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4) };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${crypto.randomBytes(6).toString('hex')}`;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frame = (delta, finish, extra = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`; // prettier-ignore
      res.write(frame({ role: 'assistant', content }, null));
      res.write(frame({}, 'stop', body.stream_options?.include_usage ? { usage } : {}));
      return void res.end('data: [DONE]\n\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage })); // prettier-ignore
  });
  const base = await listen(server);
  return { baseUrl: `${base}/v1`, counts, close: () => closeServer(server) };
}

// ---------------------------------------------------------------------------------------------------
// The webhook receiver: checks `Svc-Signature: t=<s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the
// monitors' secrets (docs/monitors.md), 5 minutes' tolerance; records each event once by its id.

function signatureOk(header, raw, secrets) {
  if (typeof header !== 'string') return false;
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=').map((s) => s.trim())));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300 || !/^[0-9a-f]{64}$/i.test(parts.v1 ?? '')) return false; // prettier-ignore
  const got = Buffer.from(parts.v1, 'hex');
  return secrets.some((secret) =>
    crypto.timingSafeEqual(got, crypto.createHmac('sha256', secret).update(`${t}.`).update(raw).digest()),
  );
}

export async function startReceiver() {
  const receiver = { secrets: [], events: new Map(), hits: 0, duplicates: 0, badSignatures: 0 };
  const server = http.createServer(async (req, res) => {
    receiver.hits++;
    const raw = await readBody(req);
    if (!signatureOk(req.headers['svc-signature'], raw, receiver.secrets)) {
      receiver.badSignatures++;
      return void res.writeHead(401).end('bad signature');
    }
    const event = JSON.parse(raw);
    if (receiver.events.has(event.id)) receiver.duplicates++;
    else receiver.events.set(event.id, { type: event.type, monitorId: event.data?.monitorId ?? event.data?.id, runId: event.type.startsWith('monitor.run') ? event.data?.id : undefined }); // prettier-ignore
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const base = await listen(server);
  return Object.assign(receiver, { url: `${base}/hook`, close: () => closeServer(server) });
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
}

// ---------------------------------------------------------------------------------------------------
// A private PostgreSQL cluster: initdb into a temp dir, started with pg_ctl on a free loopback port (its
// socket in the same dir), restartable (`pg_ctl restart -m fast`), stopped and removed on exit, Ctrl-C
// included. initdb refuses to run as root, so as root every PostgreSQL binary runs as the `postgres`
// user through runuser (the temp dir is handed to it).

const PG_BINS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];

function pgBin() {
  const dir = process.env.SOAK_PG_BIN ?? PG_BINS.find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!dir || !fs.existsSync(path.join(dir, 'initdb'))) {
    throw new Error(`no PostgreSQL binaries found in ${PG_BINS.join(', ')} (set SOAK_PG_BIN to the directory of initdb and pg_ctl)`); // prettier-ignore
  }
  return dir;
}

export async function startPrivatePostgres(log) {
  const bin = pgBin();
  const root = process.getuid?.() === 0;
  const owner = root ? 'postgres' : os.userInfo().username;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-soak-pg-'));
  if (root) execFileSync('chown', ['-R', `${owner}:`, dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const command = (cmd, args) => {
    const full = path.join(bin, cmd);
    return root ? ['runuser', ['-u', owner, '--', full, ...args]] : [full, args];
  };
  const run = (cmd, args, timeout = 120_000) => {
    const [file, argv] = command(cmd, args);
    return execFileSync(file, argv, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout });
  };
  const cluster = {
    dir,
    port,
    owner,
    url: `postgres://postgres@${HOST}:${port}/postgres`,
    logFile: path.join(dir, 'postgres.log'),
    stopped: false,
    /** `pg_ctl restart -m fast` (not blocking this process): connections are cut; back when it resolves (-w). */
    restart() {
      const [file, argv] = command('pg_ctl', ['-D', data, '-l', cluster.logFile, '-m', 'fast', '-w', '-t', '60', 'restart']); // prettier-ignore
      return new Promise(
        (resolve, reject) =>
        execFile(file, argv, { cwd: dir, timeout: 90_000 }, (err, _out, stderr) => (err ? reject(new Error(`pg_ctl restart: ${stderr || err.message}`)) : resolve())), // prettier-ignore
      );
    },
    /** Synchronous, so that it can run in an 'exit' handler. */
    stop() {
      if (cluster.stopped) return;
      cluster.stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop'], 40_000);
      } catch (err) {
        console.error(`soak: pg_ctl stop failed (${err.message}); the cluster in ${dir} may still run on port ${port}`); // prettier-ignore
        return;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  process.on('exit', () => cluster.stop());
  log(`initdb in ${dir} (as ${owner})…`);
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // the socket in the cluster's own dir, loopback TCP only, enough connections for two replicas' pools
  const opts = `-p ${port} -k ${dir} -c listen_addresses=${HOST} -c max_connections=100 -c shared_buffers=64MB`;
  run('pg_ctl', ['-D', data, '-l', cluster.logFile, '-o', opts, '-w', '-t', '60', 'start']);
  log(`PostgreSQL on ${HOST}:${port}`);
  return cluster;
}
