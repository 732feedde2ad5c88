/**
 * Fuzz values derived from a JSON Schema (the OpenAPI document's request bodies, an MCP tool's input
 * schema): fast-check arbitraries of plausible values, and the smallest instance a schema accepts.
 */
import fc from 'fast-check';

/** A JSON Schema node as the OpenAPI document and `tools/list` give it. */
export type Schema = Record<string, unknown>;

/** Resolves `#/components/schemas/X` (or any local pointer) against `root`. */
export type Resolver = (schema: Schema) => Schema;

/** A resolver of local `$ref`s within `root` (one hop at a time, so a cycle stops at the depth cap). */
export function resolverOf(root: Schema): Resolver {
  return (schema) => {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
    let node: unknown = root;
    for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown> | undefined)?.[part];
    return (node as Schema | undefined) ?? {};
  };
}

/** URLs a body may carry: unreachable names that fail fast (`.invalid` never resolves), odd schemes. */
export const UNREACHABLE_URLS = [
  'https://docs.fuzz.invalid/guide',
  'http://unreachable.fuzz.invalid:8080/a?b=c#d',
  'file:///etc/passwd',
  'javascript:alert(1)',
];

/** URLs the private-network policy refuses (loopback, link-local metadata, private ranges). */
export const POLICY_URLS = [
  'http://127.0.0.1:1/admin',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'http://user:pass@10.0.0.1/',
];

/** How values are derived: the resolver of `$ref`s and the URLs to put in URL-like strings. */
export interface Derivation {
  resolve: Resolver;
  urls: readonly string[];
}

const MAX_DEPTH = 5;
const typesOf = (schema: Schema): string[] =>
  Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];

function stringArbitrary(schema: Schema, urls: readonly string[]): fc.Arbitrary<string> {
  if (schema.format === 'uri' || schema.format === 'url') return fc.constantFrom(...urls);
  if (schema.format === 'date-time' || schema.format === 'date') {
    return fc.constantFrom('2024-01-01', '2024-02-30T25:61:00Z', '1970-01-01T00:00:00.000Z');
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, min + 40);
  return fc.oneof(
    fc.string({ minLength: min, maxLength: max }),
    fc.constantFrom('US', 'typescript undici pool', 'example.com', ...urls),
  );
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
  const lo = Math.max(min, -1e6);
  const hi = Math.min(max, 1e6);
  return integer ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }) : fc.double({ min: lo, max: hi, noNaN: true }); // prettier-ignore
}

/** An object with its required fields and at most two optional ones, so most bodies pass the cross-field rules. */
function objectArbitrary(schema: Schema, d: Derivation, depth: number): fc.Arbitrary<unknown> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(props);
  if (names.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }); // prettier-ignore
  const required = new Set((schema.required ?? []) as string[]);
  const optional = names.filter((name) => !required.has(name));
  return fc.subarray(optional, { maxLength: Math.min(2, optional.length) }).chain((chosen) => {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of [...names.filter((n) => required.has(n)), ...chosen]) model[name] = valueOf(props[name]!, d, depth + 1); // prettier-ignore
    return fc.record(model);
  });
}

/** An arbitrary of values shaped like `schema`: mostly valid, sometimes at or past its limits. */
export function valueOf(schema: Schema, d: Derivation, depth = 0): fc.Arbitrary<unknown> {
  const node = d.resolve(schema);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const union = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (union?.length) return fc.oneof(...union.map((s) => valueOf(s, d, depth + 1)));
  if (Array.isArray(node.allOf) && node.allOf.length) return valueOf(node.allOf[0] as Schema, d, depth + 1);
  const types = typesOf(node);
  if (types.length === 0) return node.properties ? objectArbitrary(node, d, depth) : fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((type) => valueOfType(type, node, d, depth)));
}

function valueOfType(type: string, node: Schema, d: Derivation, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(node, d.urls);
    case 'integer':
    case 'number':
      return numberArbitrary(node, type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const max = Math.min(typeof node.maxItems === 'number' ? node.maxItems : 3, 3);
      const min = Math.min(typeof node.minItems === 'number' ? node.minItems : 0, max);
      return fc.array(valueOf((node.items ?? {}) as Schema, d, depth + 1), { minLength: min, maxLength: max });
    }
    default:
      return objectArbitrary(node, d, depth);
  }
}

/** The smallest value `schema` accepts (what the loopback model answers for a structured output). */
export function minimalInstance(schema: unknown, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 20) return null;
  const node = schema as Schema;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0];
  const type = typesOf(node)[0] ?? (node.properties ? 'object' : 'string');
  if (type === 'object') {
    const props = (node.properties ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const name of (node.required ?? []) as string[]) out[name] = minimalInstance(props[name], depth + 1);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return typeof node.minimum === 'number' ? node.minimum : 0;
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  return typeof node.minLength === 'number' ? 'x'.repeat(node.minLength) : '';
}
