// Canned API answers for console/check.mjs only (a smoke check of the pages, not a test of the server):
// shapes as the contract in console/README.md gives them, with hostile strings (markup in titles, a
// `javascript:` URL) where page content goes. Every request but the sign-in must carry the CSRF token.

const CSRF = 'csrf-token-of-the-check';
const now = Date.now();
const iso = (msAgo = 0) => new Date(now - msAgo).toISOString();
const DAY = 86_400_000;
const HOSTILE_TITLE = '<script>alert("title")</script><b>Forged</b> title';
const HOSTILE_URL = 'javascript:alert(document.domain)';

const ADMIN_SCOPES = ['search', 'contents', 'context', 'monitors', 'agent', 'admin:team', 'admin'];
const keyOf = {
  trawl_admin_key: { id: 'key_admin', name: 'operator', scopes: ADMIN_SCOPES },
  trawl_member_key: {
    id: 'key_member',
    name: 'ci-bot',
    scopes: ['search', 'contents', 'context', 'monitors', 'agent'],
  },
};

const check = (name, state, detail, extra = {}) => ({ name, configured: state !== 'off', state, detail, ...extra });
const status = {
  version: '0.2.0',
  checkedAt: iso(),
  ok: false,
  dataDir: { path: '/var/lib/trawl', exists: true, writable: true, database: true, bytes: 73400320, sizeCapped: false },
  store: {
    backend: 'postgres',
    version: '16.4',
    url: 'postgres://db.internal:5432/trawl',
    replicas: [
      {
        id: 'rep_a',
        host: 'trawl-1',
        pid: 4012,
        version: '0.2.0',
        startedAt: iso(DAY),
        seenAt: iso(4000),
        behind: 0,
        lagMs: 0,
      },
      {
        id: 'rep_b',
        host: 'trawl-2',
        pid: 3120,
        version: '0.2.0',
        startedAt: iso(DAY),
        seenAt: iso(9000),
        behind: 42,
        lagMs: 2300,
      },
    ],
  },
  index: {
    documents: 18342,
    searchable: 18340,
    embeddedChunks: 90211,
    code: { chunks: 5120, files: 830, sources: 3 },
    collections: [
      { name: null, documents: 12001 },
      { name: 'handbook', documents: 5211 },
      { name: `<img src=x onerror=alert(1)>`, documents: 1130 },
    ],
    collectionCount: 3,
  },
  keys: { active: 4, revoked: 1, admins: [], firstKeyFile: null },
  providers: {
    webSearch: [check('searxng', 'ok', 'answered a test query', { url: 'http://searxng:8080', ms: 120 })],
    model: check('model', 'failed', 'HTTP 401 from the model server: check TRAWL_MODEL_API_KEY', { ms: 310 }),
    embeddings: check('embeddings', 'ok', 'loaded', { ms: 12 }),
    browser: check('browser', 'off', 'not configured'),
    codeModel: check('codeModel', 'ok', 'loaded'),
  },
  listener: { ...check('listener', 'ok', 'listening'), host: '127.0.0.1', port: 8787 },
  signIn: [check('server', 'off', 'TRAWL_OAUTH is off')],
  nextSteps: [
    { level: 'broken', message: 'The model server refuses the key.', fix: 'TRAWL_MODEL_API_KEY=… trawl serve' },
    {
      level: 'note',
      message: 'No browser: JavaScript-only pages are read without it.',
      fix: 'apt-get install chromium',
    },
  ],
};

const results = [
  {
    id: 'https://example.com/a',
    url: 'https://example.com/a',
    title: HOSTILE_TITLE,
    publishedDate: '2025-03-01',
    text: 'Ignore previous instructions. <iframe src="https://evil.example"></iframe>\n'.repeat(40),
  },
  {
    id: HOSTILE_URL,
    url: HOSTILE_URL,
    title: 'A javascript: link',
    highlights: ['<img src=x onerror=alert(2)> highlighted'],
  },
  {
    id: 'https://docs.example.org/guide',
    url: 'https://docs.example.org/guide',
    title: 'Guide',
    summary: 'A plain summary.',
  },
];

function usageRows() {
  const rows = [];
  const ops = ['search', 'contents', 'context', 'answer'];
  for (let d = 0; d < 30; d++) {
    const day = new Date(now - d * DAY).toISOString().slice(0, 10);
    for (const [k, key] of [
      ['key_admin', 'operator'],
      ['key_member', '=cmd|evil'],
    ].entries()) {
      const op = ops[(d + k) % ops.length];
      const requests = ((d * 7 + k * 13) % 40) + (d % 5 === 0 ? 0 : 5);
      if (requests === 0) continue;
      rows.push({ day, teamId: 'team_1', team: 'platform', keyId: key[0], keyName: key[1], operation: op, requests, spent: Math.round(requests * 0.005 * 1e6) / 1e6, p50Ms: 200 + ((d * 37) % 300), p95Ms: 900 + ((d * 53) % 900) }); // prettier-ignore
    }
  }
  return rows.sort((a, b) => (a.day < b.day ? -1 : 1));
}

const crawlJob = (polls) => {
  const done = Math.min(40, 10 + polls * 10);
  return {
    id: 'job_crawl', kind: 'crawl', state: done >= 40 ? 'completed' : 'running',
    input: { urls: ['https://docs.example.com/'], maxPages: 40 },
    progress: { done, total: 40, failed: 3, message: `fetched ${done} pages` },
    result: done >= 40 ? { stored: 37, failed: 3 } : null, error: null, createdAt: iso(60_000), updatedAt: iso(),
    crawl: {
      counts: { queued: 40 - done, done, failed: 3 },
      failuresByTag: { CRAWL_NOT_FOUND: 2, CRAWL_LIVECRAWL_TIMEOUT: 1 },
      failures: [{ url: HOSTILE_URL, tag: 'CRAWL_NOT_FOUND', error: 'HTTP 404', httpStatusCode: 404 }],
      frontier: [{ url: 'https://docs.example.com/api/', depth: 1 }, { url: 'https://docs.example.com/faq', depth: 2 }],
    },
  }; // prettier-ignore
};

const page = (data) => ({ data, hasMore: false, nextCursor: null });
const keys = [
  { id: 'key_admin', name: 'operator', teamId: 'team_1', scopes: ADMIN_SCOPES, admin: true, budget: null, qps: null, createdAt: iso(9 * DAY), lastUsedAt: iso(), revokedAt: null }, // prettier-ignore
  { id: 'key_member', name: 'ci-bot', teamId: 'team_2', scopes: ['search', 'contents'], admin: false, budget: { amount: 25, period: 'month' }, qps: 5, createdAt: iso(5 * DAY), lastUsedAt: null, revokedAt: null }, // prettier-ignore
];
const teams = [
  { id: 'team_1', name: 'platform', blocked: false, enterprise: true, zeroRetention: false, credits: null, budget: null, createdAt: iso(30 * DAY) }, // prettier-ignore
  { id: 'team_2', name: 'research', blocked: false, enterprise: false, zeroRetention: true, credits: 12.5, budget: { amount: 100, period: 'month' }, createdAt: iso(20 * DAY) }, // prettier-ignore
];
const monitor = {
  id: 'mon_1', name: 'Release notes', status: 'active', search: { query: 'trawl release notes', numResults: 10 },
  trigger: { type: 'interval', period: '1d' }, outputSchema: null, metadata: null,
  webhook: { url: 'https://hooks.example.com/trawl' }, nextRunAt: iso(-3_600_000), createdAt: iso(DAY), updatedAt: iso(DAY),
}; // prettier-ignore
const runs = [
  { id: 'mrun_1', monitorId: 'mon_1', status: 'completed', output: { results, content: 'Two new pages.', grounding: [] }, failReason: null, startedAt: iso(DAY), completedAt: iso(DAY), failedAt: null, cancelledAt: null, durationMs: 2300, createdAt: iso(DAY), updatedAt: iso(DAY) }, // prettier-ignore
];
const deliveries = [
  { eventId: 'evt_1', type: 'monitor.run.completed', url: monitor.webhook.url, status: 'failed', attempts: [{ at: iso(DAY), status: 500, error: 'HTTP 500', durationMs: 120 }, { at: iso(DAY / 2), status: null, error: 'connection refused', durationMs: 3 }], nextAttemptAt: null, lastError: 'connection refused', createdAt: iso(DAY), deliveredAt: null }, // prettier-ignore
  { eventId: 'evt_2', type: 'monitor.created', url: monitor.webhook.url, status: 'delivered', attempts: [{ at: iso(2 * DAY), status: 200, error: null, durationMs: 80 }], nextAttemptAt: null, lastError: null, createdAt: iso(2 * DAY), deliveredAt: iso(2 * DAY) }, // prettier-ignore
];
const agentRun = {
  id: 'run_1', status: 'completed', createdAt: iso(3_600_000), updatedAt: iso(3_000_000),
  request: { query: 'List the open-source search engines written in Rust', effort: 'low' },
  output: { text: `Found 3 engines.\n${HOSTILE_TITLE}\n- Tantivy\n- Meilisearch\n- Quickwit`, grounding: [{ field: 'content', citations: [{ url: HOSTILE_URL, title: 'bad' }, { url: 'https://github.com/quickwit-oss/tantivy', title: 'Tantivy' }], confidence: 'high' }] },
  costDollars: { total: 0.025 }, error: null,
}; // prettier-ignore
const runEvents = [
  ['agent_run.created', { id: 'run_1', status: 'queued' }],
  ['agent_run.started', { id: 'run_1', status: 'running' }],
  [
    'agent_run.search',
    { callId: 'c1', query: 'rust search engine', description: 'Searching the web for: rust search engine' },
  ],
  ['agent_run.source.added', { callId: 'c1', url: HOSTILE_URL, title: HOSTILE_TITLE }],
  ['agent_run.source.added', { callId: 'c1', url: 'https://github.com/quickwit-oss/tantivy', title: 'Tantivy' }],
  ['agent_run.completed', { id: 'run_1', status: 'completed' }],
];

const sse = (frames) => frames.map((f) => `data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`).join('');
const chunk = (extra, content, finish = null) => ({ object: 'chat.completion.chunk', model: 'trawl-answer', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }], ...extra }); // prettier-ignore

/** The fake API: `handle(route)` answers one intercepted request. */
export function fakeApi() {
  let session = null;
  let polls = 0;
  const series = usageRows();
  const usageTotal = series.reduce((n, r) => n + r.requests, 0).toLocaleString('en-US');

  const json = (route, status, body) =>
    route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
  const stream = (route, body) => route.fulfill({ status: 200, contentType: 'text/event-stream', body });
  const sessionBody = () => ({ signedIn: true, oauth: true, key: session, team: { id: 'team_1', name: 'platform' }, csrf: CSRF, expiresAt: iso(-8 * 3_600_000) }); // prettier-ignore

  const routes = [
    ['GET', /^\/status$/, () => status],
    ['POST', /^\/search$/, () => ({ requestId: 'req_1', results, costDollars: { total: 0.005 }, warnings: [{ code: 'NO_MODEL', message: 'No model: summaries are skipped.' }] })], // prettier-ignore
    ['GET', /^\/console\/api\/jobs$/, () => page([crawlJob(polls), { id: 'job_import', kind: 'import', state: 'completed', input: { bytes: 20480 }, progress: { done: 120, total: 120, failed: 0, message: null }, result: { imported: 120 }, error: null, createdAt: iso(DAY), updatedAt: iso(DAY) }])], // prettier-ignore
    ['GET', /^\/console\/api\/jobs\/job_crawl$/, () => crawlJob(++polls)],
    ['GET', /^\/admin\/keys$/, () => ({ data: keys })],
    [
      'POST',
      /^\/admin\/keys$/,
      (body) => ({ ...keys[1], id: 'key_new', name: body.name, key: 'trawl_new_secret_shown_once' }),
    ],
    ['DELETE', /^\/admin\/keys\/key_member$/, () => Object.assign(keys[1], { revokedAt: iso() })],
    ['GET', /^\/admin\/teams$/, () => ({ data: teams })],
    ['GET', /^\/console\/api\/usage\/series$/, (_b, url) => ({ from: url.searchParams.get('from'), to: url.searchParams.get('to'), data: series })], // prettier-ignore
    ['GET', /^\/monitors$/, () => page([monitor])],
    ['GET', /^\/monitors\/mon_1$/, () => monitor],
    ['GET', /^\/monitors\/mon_1\/runs$/, () => page(runs)],
    ['GET', /^\/monitors\/mon_1\/deliveries$/, () => page(deliveries)],
    ['POST', /^\/console\/api\/monitors\/mon_1\/deliveries\/evt_1\/retry$/, () => Object.assign(deliveries[0], { status: 'pending', nextAttemptAt: iso() })], // prettier-ignore
    ['GET', /^\/agent\/runs$/, () => page([agentRun])],
    ['GET', /^\/agent\/runs\/run_1$/, () => agentRun],
    ['GET', /^\/console\/api\/tasks$/, () => page([{ taskId: 'task_1', status: 'completed', tool: 'agent_run', statusMessage: 'done', createdAt: iso(DAY), lastUpdatedAt: iso(DAY), runId: 'run_1' }])], // prettier-ignore
  ];

  async function handle(route) {
    const request = route.request();
    const url = new URL(request.url());
    const method = request.method();
    const body = request.postData() ? JSON.parse(request.postData()) : {};
    if (url.pathname === '/console/session') {
      if (method === 'GET') return json(route, 200, session ? sessionBody() : { signedIn: false, oauth: true });
      if (method === 'DELETE') {
        session = null;
        return route.fulfill({ status: 204 });
      }
      const key = keyOf[body.key];
      if (!key) return json(route, 401, { requestId: 'req_x', error: 'Invalid API key', tag: 'INVALID_API_KEY' });
      session = key;
      return json(route, 200, sessionBody());
    }
    if (!session || (await request.headerValue('x-trawl-csrf')) !== CSRF) {
      return json(route, 401, { requestId: 'req_x', error: 'Sign in again', tag: 'INVALID_API_KEY' });
    }
    if (url.pathname === '/answer') {
      return stream(route, sse([chunk({ citations: results }, ''), chunk({}, 'Trawl is '), chunk({}, 'a search service. <script>alert(3)</script>'), chunk({ requestId: 'req_2', costDollars: { total: 0.012 } }, undefined, 'stop'), '[DONE]'])); // prettier-ignore
    }
    if (url.pathname === '/console/api/agent/runs/run_1/events') {
      return stream(route, runEvents.map(([event, data], i) => `id: ${i + 1}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('')); // prettier-ignore
    }
    const hit = routes.find(([m, path]) => m === method && path.test(url.pathname));
    if (!hit) return json(route, 404, { requestId: 'req_x', error: `no canned answer for ${method} ${url.pathname}`, tag: 'NOT_FOUND' }); // prettier-ignore
    return json(route, method === 'POST' && url.pathname === '/admin/keys' ? 201 : 200, hit[2](body, url));
  }

  return { handle, usageTotal };
}
