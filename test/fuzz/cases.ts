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
