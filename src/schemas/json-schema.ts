/**
 * Caller-supplied JSON Schemas (`outputSchema`, `summary.schema`, agent-run and monitor schemas), checked
 * on the event loop only by what is cheap and bounded: limits on size, nesting, enum values and
 * properties (TRAWL_MAX_SCHEMA_*), references that stay within the schema, regular expressions that
 * parse, and Ajv's meta-schema. Compiling one, the costly part, happens in the schema worker
 * (src/core/synthesis/schema-worker.ts): `checkJsonSchema` marks the schemas it passed, and the invoke
 * step compiles them there before the operation runs (`callerSchemasIn`, src/ops/validation.ts).
 */
import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { Ajv as AjvClass } from 'ajv';
import { tooDeepInValue } from '../lib/json-shape.js';
import { isSchemaObject as isObject, resolveLocalRef, subschemasOf } from '../lib/json-schema-refs.js';

// the pure reference helpers moved to lib/, so the core uses them without importing schemas/
export { mapRefs, resolveLocalRef, subschemasOf } from '../lib/json-schema-refs.js';

/** What a caller's schema may be at most; the defaults are those of the TRAWL_MAX_SCHEMA_* settings. */
export interface SchemaLimits {
  /** Bytes of the schema as JSON (TRAWL_MAX_SCHEMA_BYTES). */
  maxBytes: number;
  /** Nesting levels of the schema as JSON: `{}` is 1, `{"properties": {"a": {}}}` is 3 (TRAWL_MAX_SCHEMA_DEPTH). */
  maxDepth: number;
  /** Values of all its `enum`s together (TRAWL_MAX_SCHEMA_ENUM_VALUES). */
  maxEnumValues: number;
  /** Names of all its `properties` together (TRAWL_MAX_SCHEMA_PROPERTIES). */
  maxProperties: number;
  /** Schema objects in it, the root and every one under `properties`, `items`, `anyOf`, `$defs`, … (TRAWL_MAX_SCHEMA_SUBSCHEMAS). */
  maxSubschemas: number;
}

export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  maxBytes: 64 * 1024,
  maxDepth: 32,
  maxEnumValues: 1000,
  maxProperties: 500,
  maxSubschemas: 1000,
});

let limits: Readonly<SchemaLimits> = DEFAULT_SCHEMA_LIMITS;

/** Sets the limits from the configuration (createApp); process-wide, as the request schemas are. */
export function setSchemaLimits(next: Partial<SchemaLimits>): void {
  limits = Object.freeze({ ...DEFAULT_SCHEMA_LIMITS, ...next });
}

export function schemaLimits(): Readonly<SchemaLimits> {
  return limits;
}

type SchemaObject = Record<string, unknown>;

const pointerSegment = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
/** A caller's string quoted in a message, cut at 120 characters (a 64 KB `$ref` makes no better error). */
const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);
const quote = (text: string) => `"${clip(text)}"`;
const where = (pointer: string) => (pointer ? `at ${clip(pointer)}` : 'at the root');

/** Why `ref` at `pointer` cannot be followed, or undefined when it points within the schema. */
function refProblem(root: SchemaObject, ref: unknown, pointer: string): string | undefined {
  if (typeof ref !== 'string') return `$ref ${where(pointer)} must be a string`;
  if (!ref.startsWith('#')) {
    return `$ref ${quote(ref)} ${where(pointer)} is not within the schema: remote references are not fetched; put the definition under $defs and refer to it as "#/$defs/<name>"`;
  }
  if (ref !== '#' && !ref.startsWith('#/')) {
    return `$ref ${quote(ref)} ${where(pointer)}: only JSON-pointer references ("#", "#/$defs/<name>", "#/definitions/<name>") are supported`;
  }
  if (resolveLocalRef(root, ref) === undefined)
    return `$ref ${quote(ref)} ${where(pointer)} points to nothing in the schema`;
  return undefined;
}

/** Why `pattern` is not a regular expression Ajv can compile (it compiles with the `u` flag), if it is not. */
function regexProblem(pattern: string, what: string, pointer: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (err) {
    return `${what} ${where(pointer)} is not a valid regular expression: ${clip((err as Error).message)}`;
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** The first limit or structural rule `root` breaks: counts, references, regular expressions, `$id`. */
function structureProblem(root: SchemaObject, max: Readonly<SchemaLimits>): string | undefined {
  let enumValues = 0;
  let properties = 0;
  let subschemas = 0;
  const visit = (node: SchemaObject, pointer: string): string | undefined => {
    if (++subschemas > max.maxSubschemas) {
      return `holds more than ${count(max.maxSubschemas)} schemas (under properties, items, anyOf, $defs, …); raise TRAWL_MAX_SCHEMA_SUBSCHEMAS to allow more`;
    }
    if (pointer !== '' && '$id' in node) return `$id ${where(pointer)}: only the root schema may have an $id`;
    if (Array.isArray(node.enum) && (enumValues += node.enum.length) > max.maxEnumValues) {
      return `has more than ${count(max.maxEnumValues)} enum values in all (${count(node.enum.length)} ${where(pointer)}); raise TRAWL_MAX_SCHEMA_ENUM_VALUES to allow more`;
    }
    if (isObject(node.properties) && (properties += Object.keys(node.properties).length) > max.maxProperties) {
      return `declares more than ${count(max.maxProperties)} properties in all; raise TRAWL_MAX_SCHEMA_PROPERTIES to allow more`;
    }
    const problem =
      ('$ref' in node ? refProblem(root, node.$ref, pointer) : undefined) ??
      (typeof node.pattern === 'string' ? regexProblem(node.pattern, 'pattern', pointer) : undefined) ??
      (isObject(node.patternProperties)
        ? Object.keys(node.patternProperties)
            .map((p) => regexProblem(p, `patternProperties key ${quote(p)}`, pointer))
            .find(Boolean)
        : undefined);
    if (problem) return problem;
    for (const [segments, child] of subschemasOf(node)) {
      const deeper = visit(child, `${pointer}/${segments.map(pointerSegment).join('/')}`);
      if (deeper) return deeper;
    }
    return undefined;
  };
  return visit(root, '');
}

/** The first limit `schema` breaks (nesting, then size, then the counts and structure), if any. */
export function schemaLimitProblem(schema: SchemaObject, max: Readonly<SchemaLimits> = limits): string | undefined {
  const deep = tooDeepInValue(schema, max.maxDepth);
  if (deep) {
    const pointer = deep.map((s) => pointerSegment(String(s))).join('/');
    return `nests deeper than ${max.maxDepth} levels (at /${clip(pointer)}); raise TRAWL_MAX_SCHEMA_DEPTH to allow more`;
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > max.maxBytes) {
    return `is ${count(bytes)} bytes as JSON; at most ${count(max.maxBytes)} are allowed (TRAWL_MAX_SCHEMA_BYTES)`;
  }
  return structureProblem(schema, max);
}

const require = createRequire(import.meta.url);
const META_ID = 'urn:trawl:json-schema-draft-07';
let meta: ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

/**
 * Ajv's draft-07 meta-schema, with two changes: `enum` values need not be unique (the spec says they
 * SHOULD be; Ajv's check compares every pair, 140 ms for 1,000 objects), and `$defs` holds schemas.
 * Loaded on first use, so start-up does not pay for Ajv.
 */
function metaValidator(): typeof meta {
  if (!meta) {
    const { Ajv } = require('ajv') as { Ajv: typeof AjvClass };
    const draft07 = require('ajv/dist/refs/json-schema-draft-07.json') as SchemaObject & { properties: SchemaObject };
    const relaxed = {
      ...draft07,
      $id: META_ID,
      properties: {
        ...draft07.properties,
        enum: { type: 'array', items: true },
        $defs: { type: 'object', additionalProperties: { $ref: '#' }, default: {} },
      },
    };
    const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false, logger: false });
    meta = ajv.compile(relaxed) as typeof meta;
  }
  return meta;
}

/** Why `schema` breaks the meta-schema (`/properties/a/type must be …`), or undefined when it does not. */
function metaProblem(schema: SchemaObject): string | undefined {
  const validate = metaValidator();
  if (validate(schema)) return undefined;
  const first = validate.errors?.[0];
  return `not a valid JSON Schema: ${first ? `${first.instancePath || '(root)'} ${first.message}` : 'rejected by the meta-schema'}`;
}

/**
 * Why `schema` may not be compiled, or undefined when it may: the limits first (so that nothing costly
 * reads a bomb), then references and regular expressions, then the meta-schema. Bounded: well under
 * 10 ms for a schema at the limits. Compiling is the schema worker's (`compileProblem`).
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isObject(schema)) return 'not a valid JSON Schema: must be an object';
  try {
    return schemaLimitProblem(schema) ?? metaProblem(schema);
  } catch (err) {
    return `not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Caller schemas that passed `checkJsonSchema` and still need compiling before an operation uses them. */
const awaitingCompile = new WeakSet<object>();

/** zod refinement: a caller JSON Schema within the limits and valid, or an issue tagged INVALID_JSON_SCHEMA. */
export function checkJsonSchema(schema: unknown, ctx: z.RefinementCtx): void {
  const problem = jsonSchemaProblem(schema);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem, params: { tag: 'INVALID_JSON_SCHEMA' } });
    return;
  }
  if (isObject(schema)) awaitingCompile.add(schema);
}

/** How far into a request `callerSchemasIn` looks: `search.contents.summary.schema` is at 4. */
const SCHEMA_FIELD_DEPTH = 6;

/**
 * The caller schemas of a parsed request that `checkJsonSchema` passed, with their field paths
 * (`outputSchema`, `contents.summary.schema`), for the invoke step to compile in the schema worker.
 */
export function callerSchemasIn(input: unknown): { path: string[]; schema: SchemaObject }[] {
  const found: { path: string[]; schema: SchemaObject }[] = [];
  const visit = (node: unknown, path: string[]) => {
    if (!isObject(node) || path.length > SCHEMA_FIELD_DEPTH) return;
    if (awaitingCompile.has(node)) return void found.push({ path, schema: node });
    for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
  };
  visit(input, []);
  return found;
}
