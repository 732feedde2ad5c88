/**
 * Pure helpers over a JSON Schema's structure: its direct subschemas, its `$ref`s rewritten, and a local
 * `$ref` resolved. No validation here (src/schemas/json-schema.ts checks callers' schemas).
 */

/** A JSON Schema object (a boolean schema is not one). */
export type SchemaObject = Record<string, unknown>;

/** Whether `v` is a plain object (not null, not an array). */
export const isSchemaObject = (v: unknown): v is SchemaObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isObject = isSchemaObject;

/** Keywords whose value is one schema (`items` may also be an array of them). */
const ONE = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
/** Keywords whose value is an array of schemas. */
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to schemas (`dependencies` may also map to arrays of names). */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

/** The object subschemas directly under `node`, each with its JSON-pointer segments (data such as `enum` is not). */
export function subschemasOf(node: SchemaObject): [string[], SchemaObject][] {
  const out: [string[], SchemaObject][] = [];
  for (const key of ONE) if (isObject(node[key])) out.push([[key], node[key] as SchemaObject]);
  for (const key of MANY) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => isObject(child) && out.push([[key, String(i)], child]));
  }
  for (const key of MAP) {
    const map = node[key];
    if (!isObject(map)) continue;
    for (const [name, child] of Object.entries(map)) if (isObject(child)) out.push([[key, name], child]);
  }
  return out;
}

/** A copy of `schema` with every `$ref` (in schema positions, not in data) replaced by `rewrite(ref)`. */
export function mapRefs(schema: unknown, rewrite: (ref: string) => string): unknown {
  if (!isObject(schema)) return schema;
  const out: SchemaObject = { ...schema };
  if (typeof out.$ref === 'string') out.$ref = rewrite(out.$ref);
  for (const key of ONE) if (isObject(schema[key])) out[key] = mapRefs(schema[key], rewrite);
  for (const key of MANY) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = list.map((child) => mapRefs(child, rewrite));
  }
  for (const key of MAP) {
    const map = schema[key];
    if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, mapRefs(v, rewrite)]));
  }
  return out;
}

/**
 * The schema `ref` (a JSON pointer within `root`: `#`, `#/$defs/name`, `#/definitions/name`) points to,
 * or undefined when it is not such a pointer or points to nothing. Own properties only.
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
