/**
 * Fuzz cases per endpoint, derived from the OpenAPI document the server serves: each operation's path,
 * query and body schemas give valid-looking values, which the hostile classes then mutate.
 */
import fc from 'fast-check';
import { POLICY_URLS, resolverOf, UNREACHABLE_URLS, valueOf, type Derivation, type Resolver, type Schema } from './json-arbitrary.js'; // prettier-ignore
import { CLASS_WEIGHTS, HOSTILE, manyKeys, pathsOf, plantAt, rawBody, schemaBomb, spreadAt, toJsonText, UNICODE_EDGES, type CaseClass, type FuzzBody } from './hostile.js'; // prettier-ignore

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

/** The endpoints of an OpenAPI document (`/health` and `/openapi.json` aside). */
export function endpointsOf(doc: Schema): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    if (path === '/health') continue;
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
