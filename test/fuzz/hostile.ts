/**
 * Hostile values and the mutations that plant them in a schema-derived body: wrong types, huge and deep
 * values, unicode edge cases, prototype-pollution keys, boundary numbers, schema bombs, raw bodies.
 */
import fc from 'fast-check';

/** The classes of generated cases; the fuzz report counts each. */
export type CaseClass =
  'valid' | 'wrong-type' | 'huge' | 'many-keys' | 'deep' | 'unicode' | 'proto' | 'boundary' | 'schema-bomb' | 'private-url' | 'raw'; // prettier-ignore

/** Every case class, in the order the suites run them (all of them, in CI too). */
export const CASE_CLASSES: readonly CaseClass[] = ['valid', 'wrong-type', 'huge', 'many-keys', 'deep', 'unicode', 'proto', 'boundary', 'schema-bomb', 'private-url', 'raw']; // prettier-ignore

/**
 * How often each class is drawn, relative to the others: small bodies mostly (they find the logic bugs,
 * fast), the large ones (hundreds of KB: long strings, many keys, deep nesting) one case in six or so.
 */
export const CLASS_WEIGHTS: Readonly<Record<CaseClass, number>> = {
  valid: 4,
  'wrong-type': 4,
  unicode: 3,
  boundary: 3,
  proto: 2,
  'private-url': 1,
  raw: 1,
  'schema-bomb': 1,
  huge: 1,
  'many-keys': 1,
  deep: 1,
};

/** One generated request body: a JSON value, or raw text with its own content type. */
export interface FuzzBody {
  cls: CaseClass;
  value?: unknown;
  raw?: string;
  contentType?: string;
}

/** Strings that trip text handling: lone surrogates, bidi overrides, NUL, BOM, combining marks. */
export const UNICODE_EDGES = [
  '\uD800',
  'a\uDC00b',
  '\u202Egnp.exe',
  '\u200F\u0645\u0631\u062D\u0628\u0627',
  'nul\u0000byte',
  '\uFEFFbom',
  '\uFFFF\uFFFE',
  'e\u0301\u0301\u0301\u0301',
  '𝕿𝖗𝖆𝖜𝖑 🐟‍🔥',
  '\u2028line\u2029',
  '%00%2e%2e%2f',
  '../../etc/passwd',
  '\uDBFF',
  '\u0000',
  '\u2066isolate\u2069\u061C',
  `a${'\u0301'.repeat(1_000)}`,
];

/** Numbers at the edges, and the spellings of non-finite numbers a JSON body can only carry as strings. */
export const BOUNDARY_VALUES: unknown[] = [
  0,
  -0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MAX_VALUE,
  1e308,
  -1e-308,
  2 ** 64,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '0x10',
  '',
];

const wrongType = fc.constantFrom<unknown>(null, true, 0, -1, '', 'x', [], {}, [null], { length: 1 });

const hugeValue = fc.oneof(
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => `item${i}`)),
  fc.integer({ min: 1_000, max: 5_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))), // prettier-ignore
);

/**
 * An array or object nested `depth` levels deep, kept as a marker: `JSON.stringify` itself overflows the
 * stack near 5,000 levels, so `toJsonText` writes the nesting as text.
 */
export class Deep {
  constructor(
    readonly depth: number,
    readonly kind: 'array' | 'object',
  ) {}

  /** The nesting as a JSON text. */
  text(): string {
    const [open, close] = this.kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
    return `${open.repeat(this.depth)}"bottom"${close.repeat(this.depth)}`;
  }

  /** The nesting as a value (for a client that serializes it itself: keep `depth` in the thousands). */
  value(): unknown {
    let value: unknown = 'bottom';
    for (let i = 0; i < this.depth; i++) value = this.kind === 'array' ? [value] : { a: value };
    return value;
  }
}

const deepValue = fc
  .tuple(fc.integer({ min: 200, max: 50_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'))
  .map(([depth, kind]) => new Deep(depth, kind));

/** JSON text of a value that may hold `Deep` markers. */
export function toJsonText(value: unknown): string {
  const deep: Deep[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Deep ? `\u0000deep${deep.push(v) - 1}\u0000` : v)); // prettier-ignore
  return text.replace(/"\\u0000deep(\d+)\\u0000"/g, (_m, i: string) => deep[Number(i)]!.text());
}

/** A value with its `Deep` markers expanded (capped at `maxDepth` levels). */
export function expandDeep(value: unknown, maxDepth: number): unknown {
  if (value instanceof Deep) return new Deep(Math.min(value.depth, maxDepth), value.kind).value();
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, maxDepth));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: expandDeep(v, maxDepth), enumerable: true, writable: true, configurable: true }); // prettier-ignore
    return out;
  }
  return value;
}

/** Keys that pollute prototypes when a parser or merge assigns them naively. */
const protoValue = fc.constantFrom<unknown>(
  JSON.parse('{"__proto__": {"polluted": "yes"}}'),
  { constructor: { prototype: { polluted: 'yes' } } },
  JSON.parse('{"__proto__": null, "toString": 1, "valueOf": "x", "hasOwnProperty": 2}'),
);

/** JSON Schemas that are expensive, referencing, uncompilable or deep: for `outputSchema`/`schema` fields. */
export const schemaBomb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1_000, 10_000, 60_000).map((n) => ({
    type: 'object',
    properties: { a: { type: 'string', enum: Array.from({ length: n }, (_, i) => `v${i}`) } },
  })),
  fc.constantFrom('$defs', 'definitions').map((where) => ({
    type: 'object',
    [where]: { x: { type: 'string' } },
    properties: { a: { $ref: `#/${where}/x` } },
  })),
  fc.constant({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }),
  fc.constant({ type: 'object', properties: { a: { type: 'object', properties: { b: { $ref: 'https://example.com/s.json' } } } } }), // prettier-ignore
  fc.constant({ type: 'object', $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } } } }, properties: { a: { $ref: '#/$defs/n' } } }), // prettier-ignore
  fc.integer({ min: 50, max: 1_500 }).map((depth) => {
    let node: unknown = { type: 'string' };
    for (let i = 0; i < depth; i++) node = { type: 'object', properties: { a: node } };
    return node;
  }),
);

/** An object of 1,000 to 30,000 unknown keys (the body limit is 10,000 per object), spread into a body's object. */
export const manyKeys: fc.Arbitrary<Record<string, number>> = fc
  .tuple(fc.integer({ min: 1_000, max: 30_000 }), fc.constantFrom('k', 'ключ', '\u202Ek', 'a'.repeat(100)))
  .map(([n, prefix]) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i])));

/** Arbitrary of the hostile value for each mutating class. */
export const HOSTILE: Record<
  Exclude<CaseClass, 'valid' | 'raw' | 'schema-bomb' | 'private-url' | 'many-keys'>,
  fc.Arbitrary<unknown>
> = {
  'wrong-type': wrongType,
  huge: hugeValue,
  deep: deepValue,
  unicode: fc.constantFrom(...UNICODE_EDGES),
  proto: protoValue,
  boundary: fc.constantFrom(...BOUNDARY_VALUES),
};

/** Bodies no schema describes: broken JSON, non-objects, a non-finite number, another content type. */
export const rawBody: fc.Arbitrary<FuzzBody> = fc.constantFrom<FuzzBody>(
  { cls: 'raw', raw: '{"query": ' },
  { cls: 'raw', raw: '[]' },
  { cls: 'raw', raw: 'null' },
  { cls: 'raw', raw: '"string"' },
  { cls: 'raw', raw: '{"numResults": 1e999}' },
  { cls: 'raw', raw: '\uFEFF{"query": "bom"}' },
  { cls: 'raw', raw: '{"query": "a", "query": {"$gt": ""}}' },
  { cls: 'raw', raw: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
  { cls: 'raw', raw: 'query=a', contentType: 'application/x-www-form-urlencoded' },
  { cls: 'raw', raw: '{"query": "a"}', contentType: 'text/plain' },
);

/** A copy of `value` with `extra`'s keys added to the object at `path` (which is replaced when not an object). */
export function spreadAt(value: unknown, path: string[], extra: Record<string, unknown>): unknown {
  const at = path.reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
  const merged = at && typeof at === 'object' && !Array.isArray(at) ? { ...at, ...extra } : extra;
  return path.length === 0 ? merged : plantAt(value, path, merged);
}

/** Paths (key lists) of every field of a JSON value, the root included. */
export function pathsOf(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  out.push(prefix);
  if (value && typeof value === 'object' && prefix.length < 6) {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...prefix, key], out);
  }
  return out;
}

/** A copy of `value` with `replacement` at `path` (or added under a new key when the path is the root). */
export function plantAt(value: unknown, path: string[], replacement: unknown, newKey = 'fuzz'): unknown {
  if (path.length === 0) {
    if (value && typeof value === 'object' && !Array.isArray(value)) return { ...value, [newKey]: replacement };
    return replacement;
  }
  const [head, ...rest] = path as [string, ...string[]];
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...(value as object) };
  copy[head] = plantAt(copy[head], rest, replacement, newKey);
  return copy;
}

/**
 * The classes of raw 2026-07-28 requests to POST /mcp (`mcp-envelope.fuzz.test.ts`): the `_meta`
 * envelope's protocol version, client capabilities and log level; `Mcp-Method`/`Mcp-Name`/
 * `MCP-Protocol-Version` headers against the body; the Tasks extension's methods with hostile or
 * another key's task ids; `server/discover` with junk params; oversized or deep JSON; batches; and
 * messages JSON-RPC itself refuses.
 */
export type EnvelopeClass =
  'version' | 'capabilities' | 'log-level' | 'headers' | 'tasks' | 'discover' | 'oversized' | 'batch' | 'malformed'; // prettier-ignore

/** How often each envelope class is drawn: the tasks (another key's above all) and headers most. */
export const ENVELOPE_WEIGHTS: Readonly<Record<EnvelopeClass, number>> = {
  version: 3,
  capabilities: 3,
  'log-level': 2,
  headers: 4,
  tasks: 5,
  discover: 2,
  oversized: 1,
  batch: 2,
  malformed: 3,
};
