/**
 * Caller JSON Schemas piece by piece (issue 21, defects 1-5): the limits checked before compiling,
 * local references (followed, rebased into the answer envelope, counted by the /search limits), the
 * depth measures of JSON texts and values, and the schema worker (compiles off the event loop, stops a
 * backtracking pattern at its deadline, knows the spec's `phone` format).
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  compileProblem,
  setSchemaTimeout,
  stopSchemaWorker,
  validationProblems,
} from '../../../src/core/synthesis/schema-worker.js';
import { answerEnvelopeSchema } from '../../../src/core/synthesis/prompt.js';
import { shapeBreachInText, tooDeepInValue } from '../../../src/lib/json-shape.js';
import {
  DEFAULT_SCHEMA_LIMITS,
  jsonSchemaProblem,
  mapRefs,
  resolveLocalRef,
  schemaLimitProblem,
} from '../../../src/schemas/json-schema.js';
import { measureSchema } from '../../../src/schemas/output-schema.schema.js';

afterAll(() => stopSchemaWorker());

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('limits, checked before anything compiles', () => {
  // how fast: bench/caller-schemas.mjs
  it('refuses a 150,000-value enum by its size', () => {
    const bomb = object({ a: { type: 'string', enum: range(150_000).map((i) => `v${i}`) } });
    expect(jsonSchemaProblem(bomb)).toMatch(/bytes as JSON; at most 65,536 .*TRAWL_MAX_SCHEMA_BYTES/);
  });

  it('counts enum values of all enums together', () => {
    const within = object({ a: { enum: range(500) }, b: { enum: range(500) } });
    expect(jsonSchemaProblem(within)).toBeUndefined();
    const over = object({ a: { enum: range(500) }, b: { enum: range(501) } });
    expect(jsonSchemaProblem(over)).toMatch(/more than 1,000 enum values in all \(501 at \/properties\/b\).*TRAWL_MAX_SCHEMA_ENUM_VALUES/); // prettier-ignore
  });

  it('counts properties and schema objects, wherever they are', () => {
    const props = (n: number) => Object.fromEntries(range(n).map((i) => [`p${i}`, { type: 'string' }]));
    expect(jsonSchemaProblem(object(props(500)))).toBeUndefined();
    expect(jsonSchemaProblem({ $defs: { a: object(props(300)) }, ...object(props(201)) })).toMatch(/more than 500 properties.*TRAWL_MAX_SCHEMA_PROPERTIES/); // prettier-ignore
    const branches = { anyOf: range(1000).map(() => ({ type: 'string' })) }; // 1,001 schema objects with the root
    expect(jsonSchemaProblem(branches)).toMatch(/more than 1,000 schemas .*TRAWL_MAX_SCHEMA_SUBSCHEMAS/);
  });

  it('refuses nesting deeper than the limit, naming where', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 16; i++) deep = object({ x: deep }); // 33 levels of JSON
    expect(jsonSchemaProblem(deep)).toMatch(/nests deeper than 32 levels \(at \/properties\/x\/properties\/x.*TRAWL_MAX_SCHEMA_DEPTH/); // prettier-ignore
    expect(schemaLimitProblem(deep, { ...DEFAULT_SCHEMA_LIMITS, maxDepth: 40 })).toBeUndefined();
  });

  it('does not count data as schemas: enum, const and default hold values, not references', () => {
    const schema = object({ a: { type: 'object', const: { $ref: 'https://example.com/x', enum: range(2000) } } });
    expect(jsonSchemaProblem(schema)).toBeUndefined();
  });
});

describe('references and regular expressions', () => {
  const withDefs = {
    ...object({ a: { $ref: '#/$defs/name' }, b: { $ref: '#/definitions/n~1m' }, c: { $ref: '#/properties/a' } }),
    $defs: { name: { type: 'string' } },
    definitions: { 'n/m': { type: 'integer' } },
  };

  it('accepts references within the schema, with JSON-pointer escapes', () => {
    expect(jsonSchemaProblem(withDefs)).toBeUndefined();
    expect(resolveLocalRef(withDefs, '#/definitions/n~1m')).toEqual({ type: 'integer' });
    expect(resolveLocalRef(withDefs, '#')).toBe(withDefs);
  });

  it.each([
    ['remote', 'https://example.com/s.json', /is not within the schema: remote references are not fetched/],
    ['relative file', 'other.json#/x', /is not within the schema/],
    ['to nothing', '#/$defs/missing', /points to nothing in the schema/],
    ['through the prototype', '#/$defs/constructor', /points to nothing in the schema/],
    ['an anchor', '#name', /only JSON-pointer references/],
  ])('refuses a reference %s', (_name, ref, message) => {
    const schema = { ...object({ a: object({ b: { $ref: ref } }) }), $defs: {} };
    expect(jsonSchemaProblem(schema)).toMatch(message);
    expect(jsonSchemaProblem(schema)).toContain('at /properties/a/properties/b');
  });

  it('refuses a pattern that does not parse (as Ajv compiles it, with the u flag), and $id below the root', () => {
    expect(jsonSchemaProblem(object({ a: { type: 'string', pattern: '(' } }))).toMatch(/pattern at \/properties\/a is not a valid regular expression: .*Unterminated group/); // prettier-ignore
    expect(jsonSchemaProblem({ patternProperties: { '[': {} } })).toMatch(/patternProperties key "\["/);
    expect(jsonSchemaProblem(object({ a: { $id: 'https://x.example/a', type: 'string' } }))).toMatch(/only the root schema may have an \$id/); // prettier-ignore
  });

  it('still checks the meta-schema, $defs included', () => {
    expect(jsonSchemaProblem(object({ a: { type: 'nonsense' } }))).toMatch(/^not a valid JSON Schema: \/properties\/a\/type/); // prettier-ignore
    expect(jsonSchemaProblem({ $defs: { a: { minimum: 'five' } } })).toMatch(/not a valid JSON Schema: \/\$defs\/a\/minimum/); // prettier-ignore
  });

  it('rewrites references in schema positions only', () => {
    const schema = {
      $ref: '#/a',
      properties: { x: { $ref: '#/b', default: { $ref: '#/c' } } },
      anyOf: [{ $ref: '#/d' }],
    };
    expect(mapRefs(schema, (r) => r.toUpperCase())).toEqual({ $ref: '#/A', properties: { x: { $ref: '#/B', default: { $ref: '#/c' } } }, anyOf: [{ $ref: '#/D' }] }); // prettier-ignore
  });
});

describe('the /search limits, counted with references followed', () => {
  const item = { type: 'object', properties: { name: { type: 'string' }, year: { type: 'integer' } } };

  it('counts a definition wherever it is used', () => {
    const schema = { ...object({ a: { $ref: '#/$defs/item' }, b: { $ref: '#/$defs/item' } }), $defs: { item } };
    expect(measureSchema(schema)).toMatchObject({ depth: 2, count: 6 });
  });

  it('sees depth that references add, and citations behind them', () => {
    const deeper = { ...object({ a: object({ b: { $ref: '#/$defs/item' } }) }), $defs: { item } };
    expect(measureSchema(deeper).depth).toBe(3);
    const cited = { ...object({ a: { $ref: '#/$defs/c' } }), $defs: { c: object({ citations: { type: 'array' } }) } };
    expect(measureSchema(cited).citationPath).toBe('a.citations');
  });

  it('reports a recursive reference, even one without properties between', () => {
    const tree = { ...object({ root: { $ref: '#/$defs/node' } }), $defs: { node: object({ kids: { type: 'array', items: { $ref: '#/$defs/node' } } }) } }; // prettier-ignore
    expect(measureSchema(tree).recursiveRef).toContain('#/$defs/node');
    const loop = { ...object({ a: { $ref: '#/$defs/x' } }), $defs: { x: { $ref: '#/$defs/y' }, y: { $ref: '#/$defs/x' } } }; // prettier-ignore
    expect(measureSchema(loop).recursiveRef).toBeDefined();
    expect(measureSchema({ ...object({ self: { $ref: '#' } }) }).recursiveRef).toBe('"#" (at self)');
  });

  // 2^40 paths: a walk of each path would never end, so finishing at all is the proof; how fast: bench/caller-schemas.mjs
  it('measures a chain of references that doubles at each step once per definition', () => {
    const defs = Object.fromEntries(range(40).map((i) => [`d${i}`, { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }])); // prettier-ignore
    expect(measureSchema({ ...object({ a: { $ref: '#/$defs/d0' } }), $defs: { ...defs, d40: { type: 'string' } } })).toMatchObject({ depth: 1, count: 1 }); // prettier-ignore
  });
});

describe('the answer envelope', () => {
  it('moves $defs to its root and rebases other local references under content', async () => {
    const shape = {
      type: 'object' as const,
      properties: { who: { $ref: '#/$defs/person' }, again: { $ref: '#/properties/who' }, self: { type: 'array', items: { $ref: '#' } } }, // prettier-ignore
      $defs: { person: object({ name: { type: 'string' }, boss: { anyOf: [{ $ref: '#/$defs/person' }, { type: 'null' }] } }) }, // prettier-ignore
      $id: 'https://example.com/answer.json',
    };
    const envelope = answerEnvelopeSchema(shape);
    expect(envelope.$defs).toBeDefined();
    expect(envelope.$id).toBeUndefined();
    const content = (envelope.properties as Record<string, Record<string, unknown>>).content!;
    expect(content.$id).toBeUndefined();
    expect(JSON.stringify(content)).toContain('"#/properties/content/properties/who"');
    expect(JSON.stringify(content)).toContain('"#/properties/content"');
    const answer = {
      who: { name: 'Ada', boss: null },
      again: { name: 'Bo', boss: { name: 'Cy', boss: null } },
      self: [],
    };
    expect(await validationProblems(envelope, { content: answer, citations: {} })).toBeUndefined();
    expect(await validationProblems(envelope, { content: { ...answer, who: { name: 1 } }, citations: {} })).toMatch(/\/content\/who\/name must be string/); // prettier-ignore
  });

  it('closes content to other properties without making a required one impossible (found by the fuzz)', async () => {
    const shape = { type: 'object' as const, properties: { a: { type: 'string' } }, required: ['a', 'b c'] };
    const envelope = answerEnvelopeSchema(shape);
    expect(await validationProblems(envelope, { content: { a: 'x', 'b c': 1 }, citations: {} })).toBeUndefined();
    expect(await validationProblems(envelope, { content: { a: 'x', 'b c': 1, d: 2 }, citations: {} })).toMatch(/additional properties/); // prettier-ignore
    const open = answerEnvelopeSchema({ ...shape, additionalProperties: true });
    expect(await validationProblems(open, { content: { a: 'x', 'b c': 1, d: 2 }, citations: {} })).toBeUndefined();
  });
});

describe('depth of JSON texts and values', () => {
  const nested = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  const tooDeepInText = (text: string, depth: number) =>
    shapeBreachInText(text, { depth, keys: Infinity, values: Infinity, containers: Infinity })?.path;

  it('finds the path to the first container past the limit, in the text and in the value', () => {
    const text = `{"q":"[[[{{\\"","list":[0,{"x":${nested(10)}}]}`;
    expect(tooDeepInText(text, 5)).toEqual(['list', 1, 'x', 'a', 'a']);
    expect(tooDeepInValue(JSON.parse(text), 5)).toEqual(['list', 1, 'x', 'a', 'a']);
    expect(tooDeepInText(text, 13)).toBeUndefined();
    expect(tooDeepInValue(JSON.parse(text), 13)).toBeUndefined();
  });

  // a recursive walk would overflow the stack; how fast: bench/caller-schemas.mjs
  it('measures two million levels without a stack', () => {
    const text = '['.repeat(2_000_000) + ']'.repeat(2_000_000);
    expect(tooDeepInText(text, 64)).toHaveLength(64);
    expect(tooDeepInValue(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), 64)).toHaveLength(64);
  });
});

describe('the schema worker', () => {
  it('gives the compiler’s reason for a schema that does not compile', async () => {
    const loop = { ...object({ a: { $ref: '#/$defs/x' } }), $defs: { x: { $ref: '#/$defs/y' }, y: { $ref: '#/$defs/x' } } }; // prettier-ignore
    expect(jsonSchemaProblem(loop)).toBeUndefined();
    expect(await compileProblem(loop)).toMatch(/references nest too deeply to compile/);
  });

  // 2^40 steps of backtracking never end by themselves: the answer can only come from the deadline
  it('stops a validation that backtracks at the deadline, and the event loop keeps turning', async () => {
    setSchemaTimeout(500);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const started = performance.now();
      await expect(validationProblems({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`)).rejects.toMatchObject({ tag: 'INVALID_JSON_SCHEMA', message: expect.stringMatching(/took longer than 500 ms \(TRAWL_SCHEMA_TIMEOUT_MS\)/) }); // prettier-ignore
      expect(performance.now() - started).toBeGreaterThanOrEqual(490); // not before it
      // a blocked event loop would run the interval once, after it; a free one every few ms however loaded
      expect(ticks).toBeGreaterThanOrEqual(3);
      // a new worker takes the next job
      expect(await validationProblems({ type: 'string' }, 'fine')).toBeUndefined();
    } finally {
      clearInterval(timer);
      setSchemaTimeout(2000);
    }
  });

  it('knows the spec’s phone format and ignores formats it does not know', async () => {
    const phone = { type: 'string', format: 'phone' };
    for (const ok of ['+1 (415) 555-0100', '415.555.0100', '+44 20 7946 0958', '+1 415 555 0100 ext. 12']) {
      expect(await validationProblems(phone, ok), ok).toBeUndefined();
    }
    for (const bad of ['call us', '12', '+1 415 555 0100 0000 0000', 'mailto:a@b.c']) {
      expect(await validationProblems(phone, bad), bad).toMatch(/must match format "phone"/);
    }
    expect(await validationProblems({ type: 'string', format: 'x-house-style' }, 'anything')).toBeUndefined();
    expect(await validationProblems({ type: 'string', format: 'email' }, 'nope')).toMatch(/must match format "email"/);
  });
});
