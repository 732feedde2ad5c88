/**
 * Fuzz cases per endpoint, derived from the OpenAPI document the server serves: each operation's path,
 * query and body schemas give valid-looking values, which the hostile classes then mutate.
 */
import fc from 'fast-check';
import { POLICY_URLS, resolverOf, UNREACHABLE_URLS, valueOf, type Derivation, type Resolver, type Schema } from './json-arbitrary.js'; // prettier-ignore
import { CLASS_WEIGHTS, Deep, ENVELOPE_WEIGHTS, HOSTILE, manyKeys, pathsOf, plantAt, rawBody, schemaBomb, spreadAt, toJsonText, UNICODE_EDGES, type CaseClass, type EnvelopeClass, type FuzzBody } from './hostile.js'; // prettier-ignore

/** One endpoint of the REST door, as the OpenAPI document describes it. */
export interface Endpoint {
  /** `POST /search`, `GET /monitors/{id}`: the report's row. */
  name: string;
  method: string;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body: Schema | undefined;
  /** Monitor routes answer errors as `{error}`. */
  simpleErrors: boolean;
}

/** One request to send. */
export interface FuzzCase {
  endpoint: Endpoint;
  cls: CaseClass;
  /** The path with its parameters filled and the query string. */
  url: string;
  body?: FuzzBody;
}

/** The endpoints of an OpenAPI document (the probes `/health` and `/ready`, and `/openapi.json`, aside). */
export function endpointsOf(doc: Schema): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    if (path === '/health' || path === '/ready') continue;
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as { name: string; in: string; schema: Schema }[];
      const content = (op.requestBody as Schema | undefined)?.content as Record<string, { schema: Schema }> | undefined; // prettier-ignore
      out.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: content?.['application/json']?.schema,
        simpleErrors: path === '/monitors' || path.startsWith('/monitors/'),
      });
    }
  }
  return out;
}

/** Paths of the fields of a body schema that take a caller's JSON Schema (`outputSchema`, `summary.schema`). */
export function schemaFieldPaths(schema: Schema, resolve: Resolver, prefix: string[] = []): string[][] {
  const node = resolve(schema);
  const out: string[][] = [];
  if (prefix.length > 4) return out;
  for (const sub of [...((node.anyOf ?? []) as Schema[]), ...((node.oneOf ?? []) as Schema[])]) {
    out.push(...schemaFieldPaths(sub, resolve, prefix));
  }
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, Schema>)) {
    if (name === 'outputSchema' || name === 'schema') out.push([...prefix, name]);
    else out.push(...schemaFieldPaths(child, resolve, [...prefix, name]));
  }
  return out;
}

const pathParam = fc.oneof(
  fc.constantFrom('does-not-exist', '0', '-1', '..%2F..', '%00', 'a'.repeat(2_000)),
  fc.constantFrom(...UNICODE_EDGES).map((s) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '?'))),
);

function queryString(endpoint: Endpoint, d: Derivation): fc.Arbitrary<string> {
  const parts = endpoint.query.map(({ name, schema }) =>
    fc.option(fc.oneof(valueOf(schema, d), HOSTILE.boundary, HOSTILE['wrong-type']), { nil: undefined }).map(
      (v) => (v === undefined ? '' : `${encodeURIComponent(name)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v) ?? '')}`), // prettier-ignore
    ),
  );
  return fc.tuple(...parts).map((kv) => {
    const q = kv.filter(Boolean).join('&');
    return q ? `?${q}` : '';
  });
}

/** A body of `cls` for a body schema: derived, then mutated at one of its fields. */
function bodyOf(cls: CaseClass, schema: Schema, d: Derivation): fc.Arbitrary<FuzzBody> {
  if (cls === 'private-url') return valueOf(schema, { ...d, urls: POLICY_URLS }).map((value) => ({ cls, value }));
  const base = valueOf(schema, d);
  const resolve = d.resolve;
  if (cls === 'valid') return base.map((value) => ({ cls, value }));
  if (cls === 'raw') return rawBody;
  if (cls === 'schema-bomb') {
    const fields = schemaFieldPaths(schema, resolve);
    const at = fc.constantFrom(...(fields.length ? fields : [['outputSchema']]));
    return fc.tuple(base, at, schemaBomb).map(([value, path, bomb]) => ({ cls, value: plantAt(value, path, bomb) }));
  }
  if (cls === 'many-keys') {
    return fc.tuple(base, fc.nat(), manyKeys).map(([value, pick, keys]) => {
      const objects = pathsOf(value).filter((p) => isObject(p.reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value))); // prettier-ignore
      return { cls, value: spreadAt(value, objects.length ? objects[pick % objects.length]! : [], keys) };
    });
  }
  return fc.tuple(base, fc.nat(), HOSTILE[cls]).map(([value, pick, hostile]) => {
    const paths = pathsOf(value);
    return { cls, value: plantAt(value, paths[pick % paths.length]!, hostile, cls === 'proto' ? '__proto__' : 'fuzz') }; // prettier-ignore
  });
}

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Case classes an endpoint gets: the body classes only where it takes a body. */
export function classesOf(endpoint: Endpoint, allowed: readonly CaseClass[]): CaseClass[] {
  return endpoint.body ? [...allowed] : allowed.filter((c) => c === 'valid' || c === 'unicode');
}

/** One of `classes`, drawn by CLASS_WEIGHTS. */
const weighted = (classes: CaseClass[]) =>
  fc.oneof(...classes.map((cls) => ({ arbitrary: fc.constant(cls), weight: CLASS_WEIGHTS[cls] })));

/** An arbitrary of cases for `endpoint` drawn from the `allowed` classes; undefined when none applies. */
export function caseOf(
  endpoint: Endpoint,
  doc: Schema,
  allowed: readonly CaseClass[],
): fc.Arbitrary<FuzzCase> | undefined {
  const d: Derivation = { resolve: resolverOf(doc), urls: UNREACHABLE_URLS };
  const classes = classesOf(endpoint, allowed);
  if (classes.length === 0) return undefined;
  const params = fc.tuple(...endpoint.pathParams.map(() => pathParam));
  const url = fc.tuple(params, queryString(endpoint, d)).map(([values, query]) => {
    let path = endpoint.path;
    endpoint.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
    return path + query;
  });
  if (!endpoint.body) return fc.tuple(url, weighted(classes)).map(([u, cls]) => ({ endpoint, cls, url: u }));
  const body = weighted(classes).chain((cls) => bodyOf(cls, endpoint.body!, d));
  return fc.tuple(url, body).map(([u, b]) => ({ endpoint, cls: b.cls, url: u, body: b }));
}

/** The text sent for a body. */
export function bodyText(body: FuzzBody | undefined): string | undefined {
  if (!body) return undefined;
  return body.raw ?? toJsonText(body.value);
}

/** The routes a Bearer credential reaches with OAuth on, and the metadata documents (issue 35). */
export const OAUTH_ROUTES: readonly { method: string; path: string; body?: string; simpleErrors: boolean }[] = [
  {
    method: 'POST',
    path: '/mcp',
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}',
    simpleErrors: false,
  },
  { method: 'POST', path: '/mcp', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}', simpleErrors: false }, // prettier-ignore
  { method: 'POST', path: '/search', body: '{"query":"x"}', simpleErrors: false },
  { method: 'GET', path: '/monitors', simpleErrors: true },
  { method: 'GET', path: '/.well-known/oauth-protected-resource', simpleErrors: false },
  { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', simpleErrors: false },
];

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url'); // prettier-ignore

/** A JOSE header or claims set: plausible names with hostile values, or hostile JSON altogether. */
const joseJson = (names: readonly string[], issuers: readonly string[]) =>
  fc.oneof(
    fc.dictionary(
      fc.constantFrom(...names),
      fc.oneof(
        fc.constantFrom(...issuers, 'none', 'HS256', 'RS256', 'at+jwt', '', '../../etc/passwd'),
        fc.string({ maxLength: 300 }),
        fc.integer(),
        fc.constantFrom(-1, 1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 50 }),
        fc.constant({ __proto__: { polluted: true } }),
        fc.string({ minLength: 5000, maxLength: 6000 }),
      ),
      { maxKeys: 12 },
    ),
    fc.constantFrom('null', '[]', '"x"', '{', '{"a":' + '['.repeat(2000)),
  );

/**
 * A hostile Bearer value for an HTTP header (printable ASCII): random text, `trawl_`-shaped keys, and
 * JWT-shaped values whose header and claims name the trusted issuers with every kind of bad field.
 */
export function hostileBearer(issuers: readonly string[]): fc.Arbitrary<string> {
  const header = joseJson(['alg', 'typ', 'kid', 'jku', 'x5u', 'crit', 'b64', 'jwk'], issuers);
  const claims = joseJson(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'scope', 'scp', 'trawl_team', 'email', 'email_verified', 'client_id'], issuers); // prettier-ignore
  const part = fc.string({ unit: fc.constantFrom(...'ABCabc019-_.='.split('')), maxLength: 400 });
  return fc.oneof(
    fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 2000 }), // prettier-ignore
    part.map((p) => `trawl_${p}`),
    fc.tuple(header, claims, part).map(([h, c, s]) => `${b64url(h)}.${b64url(c)}.${s}`),
    fc.tuple(header, claims).map(([h, c]) => `${b64url(h)}.${b64url(c)}.`),
    fc.tuple(part, part, part, part, part).map((parts) => parts.join('.')),
  );
}

/** The protocol revision of the raw envelope cases, and the `_meta` keys of its envelope. */
export const MODERN = '2026-07-28';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';

/** One raw request to POST /mcp: its headers and body text, and what its answer must be. */
export interface EnvelopeCase {
  cls: EnvelopeClass;
  /** `refusal`: a JSON-RPC error (or a 4xx) is due, never a result; `any`: a result or a refusal. */
  expect: 'any' | 'refusal';
  /** The case names a task of another key: its answer must show nothing of that task. */
  foreign: boolean;
  headers: Record<string, string>;
  body: string;
  /** The case in a few words, for the report. */
  what: string;
}

/** The task ids the envelope cases use: the fuzzing key's own, and another key's. */
export interface TaskIds {
  own: readonly string[];
  foreign: readonly string[];
}

type Message = Record<string, unknown>;

/** A 2026-07-28 envelope (`_meta`) with `extra` keys over the defaults. */
const metaWith = (extra: Record<string, unknown> = {}) => ({ [VERSION_KEY]: MODERN, [CAPABILITIES_KEY]: {}, ...extra });

/** A request of `method` with `params` and an envelope (`undefined`: no `_meta` at all). */
const rpc = (method: string, params: Message = {}, meta: unknown = metaWith()): Message => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params: meta === undefined ? params : { ...params, _meta: meta },
});

/**
 * A header value a fetch can send: printable ASCII as it is, anything else as the SDK's `=?base64?…?=`
 * form (what a 2026-07-28 client sends for a name outside ASCII).
 */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?base64?${Buffer.from(value).toString('base64')}?=`;
}

/**
 * The headers a 2026-07-28 client sends with `message`: `MCP-Protocol-Version` (the envelope's, when it
 * names one), `Mcp-Method`, and `Mcp-Name` mirroring the tool name, task id or resource URI.
 */
export function envelopeHeaders(message: unknown): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN };
  if (!isObject(message)) return headers;
  const m = message as Message;
  const params = isObject(m.params) ? (m.params as Message) : {};
  const version = isObject(params._meta) ? (params._meta as Message)[VERSION_KEY] : undefined;
  if (typeof version === 'string') headers['mcp-protocol-version'] = headerValue(version);
  if (typeof m.method === 'string') headers['mcp-method'] = headerValue(m.method);
  const name = [params.name, params.taskId, params.uri].find((v) => typeof v === 'string') as string | undefined;
  if (name !== undefined) headers['mcp-name'] = headerValue(name);
  return headers;
}

/** A case whose headers mirror its body (a JSON value, or `Deep` markers written as text). */
const mirrored = (cls: EnvelopeClass, expect: EnvelopeCase['expect'], what: string, message: unknown, foreign = false): EnvelopeCase => ({ cls, expect, foreign, what, headers: envelopeHeaders(message), body: toJsonText(message) }); // prettier-ignore

/** Requests a 2026-07-28 client sends every day, each answered with a result. */
function plainRequests(tasks: TaskIds): fc.Arbitrary<Message> {
  const own = tasks.own.length ? [rpc('tasks/get', { taskId: tasks.own[0] })] : [];
  return fc.constantFrom(
    rpc('tools/list'),
    rpc('server/discover'),
    rpc('ping'),
    rpc('resources/templates/list'),
    rpc('tools/call', { name: 'search', arguments: { query: 'fuzz envelope' } }),
    ...own,
  );
}

const junkValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, 0, -1, '', 'x', [], {}, [null], 2 ** 64, 1e308),
  fc.constantFrom(...UNICODE_EDGES),
  HOSTILE.proto,
);

/** `_meta.protocolVersion` (and its header) wrong, absent, unknown, of another type, or the envelope itself hostile. */
function versionCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const version = fc.oneof(
    fc.constantFrom<unknown>(undefined, '', '2099-01-01', '2025-11-25', '2025-06-18', '2024-11-05', `${MODERN} `, '2026-7-28', 'latest', 'x'.repeat(10_000)), // prettier-ignore
    junkValue,
  );
  const header = fc.constantFrom<string | undefined | 'mirror'>('mirror', 'mirror', undefined, MODERN, '2025-11-25', '2099-01-01', 'garbage'); // prettier-ignore
  const envelope = fc.oneof(
    { weight: 4, arbitrary: version.map((v) => (v === undefined ? { [CAPABILITIES_KEY]: {} } : metaWith({ [VERSION_KEY]: v }))) }, // prettier-ignore
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'x', [], 5, { [VERSION_KEY]: MODERN }) },
  );
  return fc.tuple(plainRequests(tasks), envelope, header).map(([base, meta, h]) => {
    const { _meta, ...params } = base.params as Message;
    const message = rpc(base.method as string, params, meta);
    const c = mirrored('version', 'any', `_meta ${JSON.stringify(meta)?.slice(0, 80)} header ${h}`, message);
    if (h === undefined) delete c.headers['mcp-protocol-version'];
    else if (h !== 'mirror') c.headers['mcp-protocol-version'] = h;
    // an envelope naming a version that is not 2026-07-28 (or not a string) is refused, whatever the header
    const version = isObject(meta) ? (meta as Message)[VERSION_KEY] : undefined;
    if (isObject(meta) && VERSION_KEY in (meta as Message) && version !== MODERN) c.expect = 'refusal';
    return c;
  });
}

/** Client capabilities (and client info) of the wrong shape, unknown, huge or polluting. */
function capabilitiesCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const capabilities = fc.oneof(
    junkValue,
    fc.constantFrom<unknown>(
      { sampling: 'yes' },
      { sampling: {}, elicitation: { form: 1, url: [] } },
      { extensions: null },
      { extensions: { [TASKS_EXTENSION]: 5 } },
      { extensions: { [TASKS_EXTENSION]: {}, 'x.example/unknown': { a: [1] } } },
      { extensions: { ['x'.repeat(5_000)]: {} } },
      { roots: { listChanged: 'y' } },
      { experimental: { a: { b: { c: {} } } } },
      { tasks: { requests: { tools: { call: {} } } } },
      JSON.parse('{"__proto__": {"polluted": "yes"}, "sampling": {}}'),
    ),
    fc.integer({ min: 100, max: 3_000 }).map((n) => ({ experimental: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, {}])) })), // prettier-ignore
  );
  const info = fc.constantFrom<unknown>(undefined, null, 'x', { name: 5 }, { name: '\u202Eevil', version: 'x'.repeat(5_000) }); // prettier-ignore
  const run = rpc('tools/call', { name: 'agent_run', arguments: { query: 'fuzz capabilities', effort: 'low' } });
  return fc
    .tuple(
      fc.oneof({ weight: 4, arbitrary: plainRequests(tasks) }, { weight: 1, arbitrary: fc.constant(run) }),
      capabilities,
      info,
    ) // prettier-ignore
    .map(([base, caps, clientInfo]) => {
      const { _meta, ...params } = base.params as Message;
      const meta = metaWith({ [CAPABILITIES_KEY]: caps, ...(clientInfo === undefined ? {} : { [CLIENT_INFO_KEY]: clientInfo }) }); // prettier-ignore
      // capabilities that are not an object are refused
      const expect = isObject(caps) ? 'any' : 'refusal';
      return mirrored('capabilities', expect, `${base.method as string} capabilities ${JSON.stringify(caps)?.slice(0, 80)}`, rpc(base.method as string, params, meta)); // prettier-ignore
    });
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The envelope's log level: each valid one, and unknown, wrongly cased or typed ones (refused). */
function logLevelCase(): fc.Arbitrary<EnvelopeCase> {
  const level = fc.oneof(fc.constantFrom<unknown>(...LOG_LEVELS), fc.constantFrom<unknown>('verbose', 'DEBUG', 'trace', '', 7, 'x'.repeat(5_000)), junkValue); // prettier-ignore
  const base = fc.constantFrom(rpc('tools/list'), rpc('tools/call', { name: 'search', arguments: { query: 'fuzz log level', numResults: 1 } })); // prettier-ignore
  return fc.tuple(base, level).map(([b, l]) => {
    const { _meta, ...params } = b.params as Message;
    const expect = typeof l === 'string' && LOG_LEVELS.includes(l) ? 'any' : 'refusal';
    return mirrored('log-level', expect, `${b.method as string} logLevel ${JSON.stringify(l)?.slice(0, 40)}`, rpc(b.method as string, params, metaWith({ [LOG_LEVEL_KEY]: l }))); // prettier-ignore
  });
}

/** A change to the headers of a mirrored case, and whether the door must refuse it. */
type HeaderChange = { what: string; expect: EnvelopeCase['expect']; change: (h: Record<string, string>, m: Message) => void }; // prettier-ignore

const HEADER_CHANGES: readonly HeaderChange[] = [
  { what: 'no Mcp-Method', expect: 'refusal', change: (h) => delete h['mcp-method'] },
  { what: 'Mcp-Method of another method', expect: 'refusal', change: (h, m) => void (h['mcp-method'] = m.method === 'tools/list' ? 'tools/call' : 'tools/list') }, // prettier-ignore
  {
    what: 'Mcp-Method with a suffix',
    expect: 'refusal',
    change: (h) => void (h['mcp-method'] = `${h['mcp-method']}x`),
  },
  // HTTP trims a header value's surrounding spaces: the method still agrees
  { what: 'Mcp-Method with spaces around', expect: 'any', change: (h) => void (h['mcp-method'] = ` ${h['mcp-method']} `) }, // prettier-ignore
  {
    what: 'Mcp-Method upper-cased',
    expect: 'any',
    change: (h) => void (h['mcp-method'] = h['mcp-method']!.toUpperCase()),
  },
  { what: 'Mcp-Name of another', expect: 'any', change: (h) => void (h['mcp-name'] = 'get_contents') },
  { what: 'no Mcp-Name', expect: 'any', change: (h) => delete h['mcp-name'] },
  { what: 'Mcp-Name of 8 KB', expect: 'any', change: (h) => void (h['mcp-name'] = 'n'.repeat(8_000)) },
  { what: 'Mcp-Name broken base64', expect: 'any', change: (h) => void (h['mcp-name'] = '=?base64?!!!not base64?=') },
  { what: 'Mcp-Name base64 of a lone surrogate', expect: 'any', change: (h) => void (h['mcp-name'] = `=?base64?${Buffer.from([0xed, 0xa0, 0x80]).toString('base64')}?=`) }, // prettier-ignore
  { what: 'MCP-Protocol-Version of 2025-11-25', expect: 'refusal', change: (h) => void (h['mcp-protocol-version'] = '2025-11-25') }, // prettier-ignore
  { what: 'MCP-Protocol-Version unknown', expect: 'refusal', change: (h) => void (h['mcp-protocol-version'] = '1999-01-01') }, // prettier-ignore
  { what: 'no MCP-Protocol-Version', expect: 'any', change: (h) => delete h['mcp-protocol-version'] },
  { what: 'Accept without event-stream', expect: 'any', change: (h) => void (h.accept = 'application/json') },
  { what: 'Accept text/html only', expect: 'any', change: (h) => void (h.accept = 'text/html') },
];

/** `Mcp-Method`, `Mcp-Name` and `MCP-Protocol-Version` that disagree with the body, are absent or hostile. */
function headersCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const named = fc.constantFrom(
    rpc('tools/call', { name: 'search', arguments: { query: 'fuzz headers' } }),
    rpc('resources/read', { uri: 'trawl://tools/search' }),
    ...tasks.own.map((taskId) => rpc('tasks/get', { taskId })),
  );
  return fc
    .tuple(fc.oneof(plainRequests(tasks), named), fc.constantFrom(...HEADER_CHANGES))
    .map(([message, change]) => {
      const c = mirrored('headers', 'any', `${message.method as string}: ${change.what}`, message);
      const had = c.headers['mcp-name'];
      change.change(c.headers, message);
      // a name header changed or dropped is refused only where the body names something (a tool, a task, a resource)
      const nameChanged = change.what.startsWith('Mcp-Name') || change.what === 'no Mcp-Name';
      c.expect = nameChanged ? (had !== undefined && had !== c.headers['mcp-name'] ? 'refusal' : 'any') : change.expect;
      return c;
    });
}

/** Task ids a stranger might try: empty, made-up, traversal, injection, huge, unicode, not strings. */
const hostileTaskId = fc.oneof(
  fc.constantFrom<unknown>('', 'task_', 'task_000000000000000000000000', "task_' OR 1=1 --", '../../etc/passwd', '%', '*', 'x'.repeat(20_000)), // prettier-ignore
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 }).map((h) => `task_${h}`),
  fc.constantFrom(...UNICODE_EDGES),
  HOSTILE['wrong-type'],
);

/** The Tasks extension's methods (and the 2025-11-25 ones it has not) on another key's, hostile or own task ids. */
function tasksCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const method = fc.constantFrom('tasks/get', 'tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/cancel', 'tasks/list', 'tasks/result'); // prettier-ignore
  const id = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(...tasks.foreign).map((taskId) => ({ taskId, whose: 'foreign' as const })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...tasks.own).map((taskId) => ({ taskId, whose: 'own' as const })) },
    { weight: 3, arbitrary: hostileTaskId.map((taskId) => ({ taskId, whose: 'hostile' as const })) },
  );
  const extra = fc.oneof(
    fc.constant<Message>({}),
    fc.constantFrom<Message>({ inputResponses: {} }, { inputResponses: { x: { action: 'accept', content: {} } } }, { inputResponses: [] }), // prettier-ignore
    junkValue.map((v): Message => ({ inputResponses: v, requestState: v })),
    fc.constantFrom(...tasks.foreign).map((taskId): Message => ({ _related: taskId })),
  );
  return fc.tuple(method, id, extra).map(([m, { taskId, whose }, more]) => {
    const { _related, ...params } = more;
    const meta = _related === undefined ? metaWith() : metaWith({ [RELATED_TASK_KEY]: { taskId: _related } });
    const message = rpc(m, { taskId, ...params }, meta);
    const known = m === 'tasks/get' || m === 'tasks/update' || m === 'tasks/cancel';
    const expect = known && whose === 'own' ? 'any' : 'refusal';
    return mirrored('tasks', expect, `${m} ${whose} ${JSON.stringify(taskId)?.slice(0, 60)}`, message, whose === 'foreign' || _related !== undefined); // prettier-ignore
  });
}

/** `server/discover` with params nobody defined. */
function discoverCase(): fc.Arbitrary<EnvelopeCase> {
  const params = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 10 }),
    fc.record({ cursor: junkValue, supportedVersions: junkValue, capabilities: junkValue }, { requiredKeys: [] }),
  );
  return params.map((p) => mirrored('discover', 'any', `server/discover ${JSON.stringify(p).slice(0, 80)}`, rpc('server/discover', p as Message))); // prettier-ignore
}

/** A request with a huge, many-keyed or deep value in its params, envelope or capabilities, or a body past 4 MiB. */
function oversizedCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const big = fc.oneof(
    { weight: 3, arbitrary: fc.oneof(HOSTILE.huge, manyKeys as fc.Arbitrary<unknown>, HOSTILE.deep) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 5_000 }).map((n) => new Deep(n, 'object')) },
    { weight: 1, arbitrary: fc.constant('x'.repeat(4 * 1024 * 1024 + 10)) },
  );
  const where = fc.constantFrom('params', '_meta', 'capabilities', 'arguments');
  return fc.tuple(plainRequests(tasks), big, where).map(([base, value, at]) => {
    const { _meta, ...params } = base.params as Message;
    const meta = at === '_meta' ? metaWith({ 'x.example/big': value }) : at === 'capabilities' ? metaWith({ [CAPABILITIES_KEY]: { experimental: { big: value } } }) : metaWith(); // prettier-ignore
    const extra =
      at === 'params' ? { big: value } : at === 'arguments' ? { arguments: { query: 'fuzz', big: value } } : {};
    const message = rpc(at === 'arguments' ? 'tools/call' : (base.method as string), { ...params, ...extra, ...(at === 'arguments' ? { name: 'search' } : {}) }, meta); // prettier-ignore
    const size = value instanceof Deep ? `depth ${value.depth}` : `${toJsonText(value).length} chars`;
    return mirrored('oversized', 'any', `${message.method as string} ${at}: ${size}`, message);
  });
}

/** JSON-RPC batches: empty, of 2026-07-28 requests (which may not be batched), of notifications, of 1,000, nested. */
function batchCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const note = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: metaWith() } };
  const legacy = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  return fc
    .tuple(
      plainRequests(tasks),
      fc.integer({ min: 2, max: 1_000 }),
      fc.constantFrom('empty', 'one', 'two', 'many', 'notes', 'nested', 'numbers', 'legacy', 'mixed'),
    ) // prettier-ignore
    .map(([req, n, shape]) => {
      const batches: Record<string, unknown[]> = {
        empty: [],
        one: [req],
        two: [req, { ...req, id: 2 }],
        many: Array.from({ length: n }, (_, i) => ({ ...req, id: i })),
        notes: [note, note],
        nested: [[req]],
        numbers: [1, 2, 3],
        legacy: [legacy, { ...legacy, id: 3 }],
        mixed: [legacy, req],
      };
      const batch = batches[shape]!;
      // the headers of the batch's first message (a client has no right answer: there is one header per request)
      const c = mirrored('batch', shape === 'empty' || shape === 'numbers' || shape === 'nested' ? 'refusal' : 'any', `batch ${shape} (${batch.length})`, batch); // prettier-ignore
      Object.assign(c.headers, envelopeHeaders(batch[0]));
      if (shape === 'legacy') c.headers['mcp-protocol-version'] = '2025-11-25';
      return c;
    });
}

/** Messages JSON-RPC refuses, or the door must not take as requests: bad ids, versions, methods, params, responses, non-JSON. */
function malformedCase(): fc.Arbitrary<EnvelopeCase> {
  const base = rpc('tools/list');
  const variants = fc.constantFrom<[string, unknown]>(
    ['id object', { ...base, id: { a: 1 } }],
    ['id null', { ...base, id: null }],
    ['id 1.5', { ...base, id: 1.5 }],
    ['id 2^64', { ...base, id: 2 ** 64 }],
    ['id 1,000 chars', { ...base, id: 'i'.repeat(1_000) }],
    ['id true', { ...base, id: true }],
    ['no jsonrpc', { id: 1, method: 'tools/list', params: base.params }],
    ['jsonrpc 1.0', { ...base, jsonrpc: '1.0' }],
    ['jsonrpc 2', { ...base, jsonrpc: 2 }],
    ['no method', { jsonrpc: '2.0', id: 1, params: base.params }],
    ['method 5', { ...base, method: 5 }],
    ['method empty', { ...base, method: '' }],
    ['method rpc.discover', { ...base, method: 'rpc.discover' }],
    ['method __proto__', { ...base, method: '__proto__' }],
    ['method constructor', { ...base, method: 'constructor' }],
    ['method toString', { ...base, method: 'toString' }],
    ['method initialize', rpc('initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } })], // prettier-ignore
    ['method logging/setLevel', rpc('logging/setLevel', { level: 'debug' })],
    ['notification with id', { ...rpc('notifications/initialized'), id: 9 }],
    ['params array', { ...base, params: [1] }],
    ['params string', { ...base, params: 'x' }],
    ['params null', { ...base, params: null }],
    ['_meta array', { ...base, params: { _meta: [] } }],
    ['a response', { jsonrpc: '2.0', id: 1, result: {} }],
    ['an error response', { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x' } }],
    ['null', null],
    ['a string', 'tools/list'],
  );
  const raw = fc.constantFrom<[string, string, string]>(
    ['broken JSON', '{"jsonrpc":"2.0","id":1,"method":', 'application/json'],
    ['duplicate keys', `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tasks/list","params":${JSON.stringify(base.params)}}`, 'application/json'], // prettier-ignore
    ['BOM', `\uFEFF${JSON.stringify(base)}`, 'application/json'],
    ['text/plain', JSON.stringify(base), 'text/plain'],
    ['form', 'jsonrpc=2.0&method=tools/list', 'application/x-www-form-urlencoded'],
    ['empty', '', 'application/json'],
    ['deep brackets', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'application/json'],
  );
  return fc.oneof(
    { weight: 3, arbitrary: variants.map(([what, message]) => mirrored('malformed', 'any', what, message)) },
    { weight: 1, arbitrary: raw.map(([what, body, type]): EnvelopeCase => ({ cls: 'malformed', expect: 'any', foreign: false, what, body, headers: { ...envelopeHeaders(base), 'content-type': type } })) }, // prettier-ignore
  );
}

/**
 * Raw 2026-07-28 requests to POST /mcp, drawn by ENVELOPE_WEIGHTS, naming `tasks` (the fuzzing key's own,
 * and another key's, which must stay unknown to it).
 */
export function envelopeCase(tasks: TaskIds): fc.Arbitrary<EnvelopeCase> {
  const of: Record<EnvelopeClass, fc.Arbitrary<EnvelopeCase>> = {
    version: versionCase(tasks),
    capabilities: capabilitiesCase(tasks),
    'log-level': logLevelCase(),
    headers: headersCase(tasks),
    tasks: tasksCase(tasks),
    discover: discoverCase(),
    oversized: oversizedCase(tasks),
    batch: batchCase(tasks),
    malformed: malformedCase(),
  };
  return fc.oneof(
    ...(Object.keys(of) as EnvelopeClass[]).map((cls) => ({ arbitrary: of[cls], weight: ENVELOPE_WEIGHTS[cls] })),
  );
}
