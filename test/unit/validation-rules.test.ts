/**
 * Every validation rule of the request schemas, against the spec (Endpoints, Limits, Versioning, Errors):
 * for each rule the rejection (status, tag, the field at fault, a message naming it) and the accepted forms
 * (parse succeeds, defaults applied). Beta rules go through `checkBetas` as the doors call it.
 */
import { describe, it, expect } from 'vitest';
import { type z } from 'zod';
import '../../src/ops/validation.js';
import { parseOrThrow, type InputPart } from '../../src/ops/validation.js';
import { OPERATIONS } from '../../src/ops/registry.js';
import { checkBetas, type Operation } from '../../src/ops/define-op.js';
import { ServiceError, type ErrorTag } from '../../src/errors.js';
import { statusOf } from '../../src/http/status.js';

const DYNAMIC_TOKEN = 'dynamic-highlights-2026-08-28';
const MAX_EFFORT_TOKEN = 'agent-max-effort-2026-07-27';

function op(name: string): Operation {
  const found = OPERATIONS.find((o) => o.name === name);
  if (!found) throw new Error(`operation ${name} is not in the registry`);
  return found;
}

function schemaOf(operation: Operation, part: 'body' | 'query'): z.ZodType {
  const schema = part === 'body' ? operation.body : operation.query;
  if (!schema) throw new Error(`operation ${operation.name} has no ${part} schema`);
  return schema;
}

const search = op('search');
const findSimilar = op('findSimilar');
const contents = op('contents');
const context = op('context');
const createMonitor = op('monitors.create');
const updateMonitor = op('monitors.update');
const listMonitors = op('monitors.list');
const listMonitorRuns = op('monitors.runs.list');
const createAgentRun = op('agent.create');

const LABEL: Record<'body' | 'query', string> = {
  body: 'Invalid request body: ',
  query: 'Invalid query parameters: ',
};

interface Rejection {
  field: string;
  tag?: ErrorTag;
  status?: number;
  /** Text the message must also contain (the rule, the hint, the replacement). */
  mentions?: string | RegExp;
}

/** Parses and returns the result; a thrown ServiceError fails the test with its message. */
function accept(operation: Operation, value: unknown, part: 'body' | 'query' = 'body'): unknown {
  return parseOrThrow(schemaOf(operation, part), value, part as InputPart);
}

/** Asserts the input is rejected with the given tag, status and field, and the message names the field. */
function reject(operation: Operation, value: unknown, expected: Rejection, part: 'body' | 'query' = 'body') {
  let caught: unknown;
  try {
    parseOrThrow(schemaOf(operation, part), value, part);
  } catch (err) {
    caught = err;
  }
  expect(caught, 'the input should have been rejected with a ServiceError').toBeInstanceOf(ServiceError);
  const err = caught as ServiceError;
  const defaultTag = part === 'body' ? 'INVALID_REQUEST_BODY' : 'INVALID_REQUEST_QUERY';
  expect(err.tag).toBe(expected.tag ?? defaultTag);
  expect(statusOf(err.tag)).toBe(expected.status ?? 400);
  expect(err.field).toBe(expected.field);
  expect(err.message.startsWith(LABEL[part])).toBe(true);
  expect(err.message).toContain(`${expected.field}: `);
  if (expected.mentions !== undefined) {
    if (typeof expected.mentions === 'string') expect(err.message).toContain(expected.mentions);
    else expect(err.message).toMatch(expected.mentions);
  }
  return err;
}

/** Asserts checkBetas refuses the parsed input without the token, naming the field and the token. */
function rejectBeta(operation: Operation, parsed: unknown, betas: string[], field: string, token: string) {
  let caught: unknown;
  try {
    checkBetas(operation, parsed, new Set(betas));
  } catch (err) {
    caught = err;
  }
  expect(caught, 'checkBetas should have refused the input').toBeInstanceOf(ServiceError);
  const err = caught as ServiceError;
  expect(err.tag).toBe('INVALID_REQUEST_BODY');
  expect(statusOf(err.tag)).toBe(400);
  expect(err.field).toBe(field);
  expect(err.message).toContain(field);
  expect(err.message).toContain(token);
}

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const domains = (n: number) => range(n, (i) => `d${i}.example.com`);
const props = (n: number) => Object.fromEntries(range(n, (i) => [`p${i}`, { type: 'string' }]));
const Q = { query: 'rust async runtimes' };

describe('POST /search', () => {
  it('applies the defaults of the spec to a minimal request', () => {
    expect(accept(search, Q)).toEqual({
      query: 'rust async runtimes',
      type: 'auto',
      stream: false,
      numResults: 10,
      moderation: false,
    });
  });

  it.each([
    { body: {}, mentions: 'is required' },
    { body: { query: '' }, mentions: 'must not be empty' },
    { body: { query: 42 }, mentions: 'string' },
  ])('rejects query $body', ({ body, mentions }) => {
    reject(search, body, { field: 'query', mentions });
  });

  it.each(['auto', 'fast', 'instant', 'deep-lite', 'deep', 'deep-reasoning', 'neural', 'keyword', 'hybrid'])(
    'accepts type %s',
    (type) => {
      expect(accept(search, { ...Q, type })).toMatchObject({ type });
    },
  );

  it('rejects type "semantic", listing the allowed values', () => {
    reject(search, { ...Q, type: 'semantic' }, { field: 'type', mentions: /"hybrid".*\(got "semantic"\)/ });
  });

  it.each([1, 10, 100])('accepts numResults %s', (numResults) => {
    expect(accept(search, { ...Q, numResults })).toMatchObject({ numResults });
  });

  it.each([
    { numResults: 0, tag: 'INVALID_NUM_RESULTS', mentions: 'at least 1' },
    { numResults: -3, tag: 'INVALID_NUM_RESULTS', mentions: 'at least 1' },
    { numResults: 101, tag: 'NUM_RESULTS_EXCEEDED', mentions: 'at most 100' },
    { numResults: 2.5, tag: 'INVALID_NUM_RESULTS', mentions: 'integer' },
    { numResults: '5', tag: 'INVALID_NUM_RESULTS', mentions: 'number' },
  ] as const)('rejects numResults $numResults with $tag', ({ numResults, tag, mentions }) => {
    reject(search, { ...Q, numResults }, { field: 'numResults', tag, status: 400, mentions });
  });

  describe.each(['includeDomains', 'excludeDomains'])('%s', (field) => {
    it('accepts 1200 entries and the domain, path-prefix and wildcard forms', () => {
      expect(accept(search, { ...Q, [field]: domains(1200) })).toMatchObject({ [field]: domains(1200) });
      const forms = ['example.com', 'example.com/blog', '*.example.com'];
      expect(accept(search, { ...Q, [field]: forms })).toMatchObject({ [field]: forms });
    });

    it('rejects 1201 entries', () => {
      reject(search, { ...Q, [field]: domains(1201) }, { field, mentions: 'at most 1200 items' });
    });
  });

  it.each(['US', 'de'])('accepts userLocation %s', (userLocation) => {
    expect(accept(search, { ...Q, userLocation })).toMatchObject({ userLocation });
  });

  it.each(['USA', 'U', 'u1', ''])('rejects userLocation %j', (userLocation) => {
    reject(search, { ...Q, userLocation }, { field: 'userLocation', mentions: 'two-letter' });
  });

  describe.each(['startPublishedDate', 'endPublishedDate'])('%s', (field) => {
    it.each(['2025-01-31', '2025-01-31T12:00:00Z', '2025-01-31T12:00:00.000+02:00'])('accepts %s', (date) => {
      expect(accept(search, { ...Q, [field]: date })).toMatchObject({ [field]: date });
    });

    it.each(['yesterday', '2025-13-01', '31/01/2025'])('rejects %s', (date) => {
      reject(search, { ...Q, [field]: date }, { field, mentions: 'ISO 8601' });
    });
  });

  it.each(['company', 'people', 'publication', 'news', 'personal site', 'financial report'])(
    'accepts category %s',
    (category) => {
      expect(accept(search, { ...Q, category })).toMatchObject({ category });
    },
  );

  it('rejects an unknown category', () => {
    reject(search, { ...Q, category: 'blog' }, { field: 'category', mentions: '(got "blog")' });
  });

  const entityFilters = [
    { field: 'startPublishedDate', value: '2025-01-01' },
    { field: 'endPublishedDate', value: '2025-06-30T00:00:00Z' },
    { field: 'excludeDomains', value: ['example.com'] },
    { field: 'includeText', value: ['series A'] },
    { field: 'excludeText', value: ['layoffs'] },
  ];

  describe.each(['company', 'people'])('category %s', (category) => {
    it.each(entityFilters)('rejects $field with 400 naming it', ({ field, value }) => {
      reject(search, { ...Q, category, [field]: value }, { field, status: 400, mentions: `category "${category}"` });
    });

    it('still accepts includeDomains', () => {
      expect(accept(search, { ...Q, category, includeDomains: ['example.com'] })).toMatchObject({
        category,
        includeDomains: ['example.com'],
      });
    });
  });

  it.each(entityFilters)('accepts $field with category news', ({ field, value }) => {
    expect(accept(search, { ...Q, category: 'news', [field]: value })).toMatchObject({
      category: 'news',
      [field]: value,
    });
  });

  it.each([
    { field: 'includeUrls', mentions: 'use includeDomains' },
    { field: 'excludeUrls', mentions: 'use excludeDomains' },
    { field: 'tokensNum', mentions: 'use contents.text.maxCharacters' },
  ])('rejects the non-existent $field, naming the replacement', ({ field, mentions }) => {
    const value = field === 'tokensNum' ? 5000 : ['https://example.com/a'];
    reject(search, { ...Q, [field]: value }, { field, mentions });
  });

  it.each(['text', 'highlights', 'summary', 'livecrawl', 'livecrawlTimeout', 'maxAgeHours', 'subpages', 'extras'])(
    'rejects top-level content option %s with a hint to nest it under contents',
    (field) => {
      reject(
        search,
        { ...Q, [field]: field === 'livecrawl' ? 'always' : 1 },
        {
          field,
          mentions: 'must be nested under "contents"',
        },
      );
    },
  );

  it('rejects text: true at the top level with the nesting hint', () => {
    reject(search, { ...Q, text: true }, { field: 'text', mentions: 'nested under "contents"' });
  });

  it('rejects an unknown field, naming it', () => {
    reject(search, { ...Q, bogusField: 1 }, { field: 'bogusField', mentions: 'unknown field' });
  });

  it('rejects an unknown field inside contents at its nested path', () => {
    reject(search, { ...Q, contents: { bogus: true } }, { field: 'contents.bogus', mentions: 'unknown field' });
  });

  it('accepts the deprecated useAutoprompt', () => {
    expect(accept(search, { ...Q, useAutoprompt: true })).toMatchObject({ useAutoprompt: true });
  });

  describe('contents', () => {
    it('applies the defaults of the content options', () => {
      expect(accept(search, { ...Q, contents: { text: {}, highlights: {}, extras: {} } })).toMatchObject({
        contents: {
          text: { includeHtmlTags: false, verbosity: 'compact' },
          highlights: { dynamic: false },
          extras: { links: 0, imageLinks: 0 },
          livecrawlTimeout: 10000,
          subpages: 0,
        },
      });
    });

    it.each([1, 10000])('accepts text.maxCharacters %s', (maxCharacters) => {
      expect(accept(search, { ...Q, contents: { text: { maxCharacters } } })).toMatchObject({
        contents: { text: { maxCharacters } },
      });
    });

    it.each([
      { maxCharacters: 0, mentions: 'at least 1' },
      { maxCharacters: 10001, mentions: 'at most 10000' },
      { maxCharacters: 1.5, mentions: 'integer' },
    ])('rejects text.maxCharacters $maxCharacters', ({ maxCharacters, mentions }) => {
      reject(
        search,
        { ...Q, contents: { text: { maxCharacters } } },
        { field: 'contents.text.maxCharacters', mentions },
      );
    });

    it('rejects an unknown text verbosity and section', () => {
      reject(search, { ...Q, contents: { text: { verbosity: 'huge' } } }, { field: 'contents.text.verbosity' });
      reject(
        search,
        { ...Q, contents: { text: { includeSections: ['body', 'ads'] } } },
        { field: 'contents.text.includeSections[1]', mentions: '(got "ads")' },
      );
    });

    it('rejects highlights with dynamic: true and maxCharacters', () => {
      reject(
        search,
        { ...Q, contents: { highlights: { dynamic: true, maxCharacters: 500 } } },
        { field: 'contents.highlights.maxCharacters', mentions: 'dynamic' },
      );
    });

    it('accepts highlights.maxCharacters without dynamic', () => {
      expect(accept(search, { ...Q, contents: { highlights: { dynamic: false, maxCharacters: 500 } } })).toMatchObject({
        contents: { highlights: { dynamic: false, maxCharacters: 500 } },
      });
    });

    it('rejects livecrawl together with maxAgeHours', () => {
      reject(
        search,
        { ...Q, contents: { livecrawl: 'always', maxAgeHours: 1 } },
        { field: 'contents.livecrawl', mentions: 'maxAgeHours' },
      );
    });

    it('accepts livecrawl or maxAgeHours alone', () => {
      expect(accept(search, { ...Q, contents: { livecrawl: 'always' } })).toMatchObject({
        contents: { livecrawl: 'always' },
      });
      expect(accept(search, { ...Q, contents: { maxAgeHours: 0 } })).toMatchObject({ contents: { maxAgeHours: 0 } });
    });

    it('rejects subpages above 100 with SUBPAGES_LIMIT_EXCEEDED', () => {
      reject(
        search,
        { ...Q, contents: { subpages: 101 } },
        { field: 'contents.subpages', tag: 'SUBPAGES_LIMIT_EXCEEDED', status: 400 },
      );
    });

    it('rejects livecrawlTimeout above 90000', () => {
      reject(search, { ...Q, contents: { livecrawlTimeout: 90001 } }, { field: 'contents.livecrawlTimeout' });
    });
  });

  describe('dynamic highlights beta', () => {
    const parsed = () => accept(search, { ...Q, contents: { highlights: { dynamic: true } } });

    it('parses dynamic: true', () => {
      expect(parsed()).toMatchObject({ contents: { highlights: { dynamic: true } } });
    });

    it('is refused without the beta token', () => {
      rejectBeta(search, parsed(), [], 'contents.highlights.dynamic', DYNAMIC_TOKEN);
    });

    it('is refused with only another beta token', () => {
      rejectBeta(search, parsed(), [MAX_EFFORT_TOKEN], 'contents.highlights.dynamic', DYNAMIC_TOKEN);
    });

    it('is accepted with the token', () => {
      expect(() => checkBetas(search, parsed(), new Set([DYNAMIC_TOKEN]))).not.toThrow();
    });

    it('needs no token when dynamic is not used', () => {
      const plain = accept(search, { ...Q, contents: { highlights: { maxCharacters: 300 } } });
      expect(() => checkBetas(search, plain, new Set())).not.toThrow();
    });
  });

  describe('outputSchema', () => {
    const nested = (depth: number): Record<string, unknown> =>
      depth === 1 ? { type: 'string' } : { type: 'object', properties: { level: nested(depth - 1) } };

    it.each([
      { name: 'text', schema: { type: 'text' } },
      { name: 'text with description', schema: { type: 'text', description: 'two sentences' } },
      {
        name: 'object with properties',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { name: 'object of depth 2', schema: { type: 'object', properties: { a: nested(2) } } },
      { name: 'object with 10 properties', schema: { type: 'object', properties: props(10) } },
    ])('accepts $name', ({ schema }) => {
      expect(accept(search, { ...Q, outputSchema: schema })).toMatchObject({ outputSchema: schema });
    });

    it('rejects nesting depth 3', () => {
      reject(
        search,
        { ...Q, outputSchema: { type: 'object', properties: { a: nested(3) } } },
        { field: 'outputSchema', mentions: 'at most 2 levels' },
      );
    });

    it('counts array items towards the depth', () => {
      const items = { type: 'array', items: nested(3) };
      reject(
        search,
        { ...Q, outputSchema: { type: 'object', properties: { list: items } } },
        { field: 'outputSchema', mentions: 'nesting depth is 3' },
      );
    });

    it('rejects 11 properties in total', () => {
      reject(
        search,
        { ...Q, outputSchema: { type: 'object', properties: props(11) } },
        { field: 'outputSchema', mentions: 'at most 10' },
      );
    });

    it('counts nested properties towards the total', () => {
      const schema = { type: 'object', properties: { ...props(5), n: { type: 'object', properties: props(5) } } };
      reject(search, { ...Q, outputSchema: schema }, { field: 'outputSchema', mentions: 'has 11 properties' });
    });

    it('rejects type object without properties', () => {
      reject(
        search,
        { ...Q, outputSchema: { type: 'object' } },
        { field: 'outputSchema.properties', mentions: 'required when type is "object"' },
      );
    });

    it('rejects a type other than text or object', () => {
      reject(search, { ...Q, outputSchema: { type: 'array' } }, { field: 'outputSchema.type', mentions: 'array' });
    });

    it.each([
      { name: 'citations', properties: { citations: { type: 'array', items: { type: 'string' } } } },
      { name: 'nested citation', properties: { a: { type: 'object', properties: { Citation: { type: 'string' } } } } },
    ])('rejects a property asking for citations ($name)', ({ properties }) => {
      reject(
        search,
        { ...Q, outputSchema: { type: 'object', properties } },
        { field: 'outputSchema.properties', mentions: 'grounding' },
      );
    });

    it('rejects an invalid JSON Schema inside properties with INVALID_JSON_SCHEMA (422)', () => {
      reject(
        search,
        { ...Q, outputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
        { field: 'outputSchema', tag: 'INVALID_JSON_SCHEMA', status: 422, mentions: 'not a valid JSON Schema' },
      );
    });
  });

  describe('compliance hipaa', () => {
    it.each(['instant', 'fast'])('accepts type %s', (type) => {
      expect(accept(search, { ...Q, compliance: 'hipaa', type })).toMatchObject({ compliance: 'hipaa', type });
    });

    it.each([{ type: undefined }, { type: 'auto' }, { type: 'deep' }])('rejects type $type', ({ type }) => {
      reject(search, { ...Q, compliance: 'hipaa', type }, { field: 'type', mentions: /"instant" or "fast"/ });
    });

    it('rejects summaries', () => {
      reject(
        search,
        { ...Q, compliance: 'hipaa', type: 'fast', contents: { summary: true } },
        { field: 'contents.summary', mentions: 'hipaa' },
      );
    });

    it.each([
      { contents: { maxAgeHours: 0 }, field: 'contents.maxAgeHours' },
      { contents: { livecrawl: 'always' }, field: 'contents.livecrawl' },
    ])('rejects livecrawl ($field)', ({ contents: c, field }) => {
      reject(search, { ...Q, compliance: 'hipaa', type: 'fast', contents: c }, { field, mentions: 'cache-only' });
    });

    it('accepts cache-only retrieval (maxAgeHours -1)', () => {
      expect(accept(search, { ...Q, compliance: 'hipaa', type: 'fast', contents: { maxAgeHours: -1 } })).toMatchObject({
        contents: { maxAgeHours: -1 },
      });
    });

    it('rejects another compliance value', () => {
      reject(search, { ...Q, compliance: 'gdpr' }, { field: 'compliance', mentions: '"hipaa"' });
    });
  });
});

describe('POST /findSimilar', () => {
  const URL_OK = 'https://example.com/post';

  it.each(['https://example.com/post', 'http://example.com/a?b=c'])('accepts url %s with defaults', (url) => {
    expect(accept(findSimilar, { url })).toEqual({ url, numResults: 10, moderation: false });
  });

  it.each([
    { body: {}, mentions: 'is required' },
    { body: { url: 'example' }, mentions: 'http(s) URL' },
    { body: { url: 'https://' }, mentions: 'http(s) URL' },
    { body: { url: 'import:' }, mentions: 'a document in the index' },
  ])('rejects url in $body', ({ body, mentions }) => {
    reject(findSimilar, body, { field: 'url', mentions });
  });

  // whether such a document exists is the service's check (test/e2e/find-similar-index-urls.test.ts)
  it.each(['import://scifact/4983', 'ftp://example.com/file'])('accepts url %s of another scheme', (url) => {
    expect(accept(findSimilar, { url })).toMatchObject({ url });
  });

  it('rejects a query instead of a url', () => {
    reject(findSimilar, { url: URL_OK, query: 'x' }, { field: 'query', mentions: 'takes "url"' });
  });

  it('accepts numResults 100', () => {
    expect(accept(findSimilar, { url: URL_OK, numResults: 100 })).toMatchObject({ numResults: 100 });
  });

  it.each([
    { numResults: 101, tag: 'NUM_RESULTS_EXCEEDED' },
    { numResults: 0, tag: 'INVALID_NUM_RESULTS' },
  ] as const)('rejects numResults $numResults with $tag', ({ numResults, tag }) => {
    reject(findSimilar, { url: URL_OK, numResults }, { field: 'numResults', tag, status: 400 });
  });

  describe.each(['includeText', 'excludeText'])('%s', (field) => {
    it('accepts one string of 5 words', () => {
      expect(accept(findSimilar, { url: URL_OK, [field]: ['one two three four five'] })).toMatchObject({
        [field]: ['one two three four five'],
      });
    });

    it('rejects a string of 6 words', () => {
      reject(
        findSimilar,
        { url: URL_OK, [field]: ['one two three four five six'] },
        { field: `${field}[0]`, mentions: 'at most 5 words' },
      );
    });

    it('rejects two strings', () => {
      reject(findSimilar, { url: URL_OK, [field]: ['one', 'two'] }, { field, mentions: 'only 1 string' });
    });
  });

  it('refuses dynamic highlights without the beta token and accepts them with it', () => {
    const parsed = accept(findSimilar, { url: URL_OK, contents: { highlights: { dynamic: true } } });
    rejectBeta(findSimilar, parsed, [], 'contents.highlights.dynamic', DYNAMIC_TOKEN);
    expect(() => checkBetas(findSimilar, parsed, new Set([DYNAMIC_TOKEN]))).not.toThrow();
  });
});

describe('POST /contents', () => {
  const U = { urls: ['https://example.com/a'] };

  it('applies the defaults to a minimal request', () => {
    expect(accept(contents, U)).toEqual({ ...U, livecrawlTimeout: 10000, subpages: 0 });
  });

  it('accepts ids alone', () => {
    expect(accept(contents, { ids: ['https://example.com/a'] })).toMatchObject({ ids: ['https://example.com/a'] });
  });

  it('rejects both ids and urls', () => {
    reject(contents, { ...U, ids: ['x'] }, { field: 'ids', status: 400, mentions: 'exactly one of ids or urls' });
  });

  it('rejects neither ids nor urls', () => {
    reject(contents, {}, { field: 'urls', status: 400, mentions: 'one of ids or urls is required' });
  });

  it.each(['ids', 'urls'])('rejects the query / contents mistakes with a hint (%s request)', (key) => {
    reject(contents, { [key]: ['a'], query: 'x' }, { field: 'query', mentions: 'use /search' });
    reject(contents, { [key]: ['a'], contents: { text: true } }, { field: 'contents', mentions: 'top-level' });
  });

  describe.each(['ids', 'urls'])('%s', (key) => {
    it('accepts 100 items and an item of 2048 characters', () => {
      const hundred = range(100, (i) => `https://example.com/${i}`);
      expect(accept(contents, { [key]: hundred })).toMatchObject({ [key]: hundred });
      expect(accept(contents, { [key]: ['a'.repeat(2048)] })).toMatchObject({ [key]: ['a'.repeat(2048)] });
    });

    it.each([
      { n: 0, mentions: 'at least 1 item' },
      { n: 101, mentions: 'at most 100 items' },
    ])('rejects $n items', ({ n, mentions }) => {
      reject(contents, { [key]: range(n, (i) => `https://example.com/${i}`) }, { field: key, mentions });
    });

    it('rejects an item of 2049 characters at its index', () => {
      reject(
        contents,
        { [key]: ['https://example.com/', 'a'.repeat(2049)] },
        { field: `${key}[1]`, mentions: 'at most 2048 characters' },
      );
    });

    it('rejects an empty item', () => {
      reject(contents, { [key]: [''] }, { field: `${key}[0]`, mentions: 'must not be empty' });
    });
  });

  it.each([
    { key: 'compliance', parsed: null },
    { key: 'text', parsed: null },
    { key: 'highlights', parsed: null },
    { key: 'summary', parsed: null },
    { key: 'extras', parsed: null },
    { key: 'context', parsed: null },
    { key: 'livecrawl', parsed: null },
    { key: 'livecrawlTimeout', parsed: 10000 },
    { key: 'maxAgeHours', parsed: null },
    { key: 'subpages', parsed: 0 },
    { key: 'subpageTarget', parsed: null },
    { key: 'filterEmptyResults', parsed: null },
  ])('accepts null for $key', ({ key, parsed }) => {
    expect(accept(contents, { ...U, [key]: null })).toMatchObject({ [key]: parsed });
  });

  it('accepts every option null at once', () => {
    const nulls = Object.fromEntries(
      [
        'compliance',
        'text',
        'highlights',
        'summary',
        'extras',
        'context',
        'livecrawl',
        'livecrawlTimeout',
        'maxAgeHours',
        'subpages',
        'subpageTarget',
        'filterEmptyResults',
      ].map((k) => [k, null]),
    );
    expect(accept(contents, { ...U, ...nulls })).toMatchObject({ livecrawlTimeout: 10000, subpages: 0, text: null });
  });

  describe.each(['text', 'highlights', 'context'])('%s.maxCharacters', (option) => {
    it.each([1, 10000])('accepts %s', (maxCharacters) => {
      expect(accept(contents, { ...U, [option]: { maxCharacters } })).toMatchObject({ [option]: { maxCharacters } });
    });

    it.each([
      { maxCharacters: 0, mentions: 'at least 1' },
      { maxCharacters: 10001, mentions: 'at most 10000' },
    ])('rejects $maxCharacters', ({ maxCharacters, mentions }) => {
      reject(contents, { ...U, [option]: { maxCharacters } }, { field: `${option}.maxCharacters`, mentions });
    });
  });

  it('accepts the deprecated numSentences and highlightsPerUrl', () => {
    expect(accept(contents, { ...U, highlights: { numSentences: 2, highlightsPerUrl: 1 } })).toMatchObject({
      highlights: { numSentences: 2, highlightsPerUrl: 1, dynamic: false },
    });
  });

  it.each(['numSentences', 'highlightsPerUrl'])('rejects %s below 1', (key) => {
    reject(contents, { ...U, highlights: { [key]: 0 } }, { field: `highlights.${key}`, mentions: 'at least 1' });
  });

  describe.each(['links', 'imageLinks', 'richImageLinks', 'richLinks', 'codeBlocks'])('extras.%s', (kind) => {
    it.each([0, 1000])('accepts %s', (count) => {
      expect(accept(contents, { ...U, extras: { [kind]: count } })).toMatchObject({ extras: { [kind]: count } });
    });

    it.each([
      { count: 1001, mentions: 'at most 1000' },
      { count: -1, mentions: 'at least 0' },
    ])('rejects $count', ({ count, mentions }) => {
      reject(contents, { ...U, extras: { [kind]: count } }, { field: `extras.${kind}`, mentions });
    });
  });

  it('defaults every extras count to 0', () => {
    expect(accept(contents, { ...U, extras: {} })).toMatchObject({
      extras: { links: 0, imageLinks: 0, richImageLinks: 0, richLinks: 0, codeBlocks: 0 },
    });
  });

  it('rejects livecrawl together with maxAgeHours', () => {
    reject(contents, { ...U, livecrawl: 'always', maxAgeHours: 24 }, { field: 'livecrawl', mentions: 'maxAgeHours' });
  });

  it('accepts livecrawl with maxAgeHours null', () => {
    expect(accept(contents, { ...U, livecrawl: 'always', maxAgeHours: null })).toMatchObject({ livecrawl: 'always' });
  });

  it.each(['never', 'always', 'fallback', 'preferred'])('accepts livecrawl %s', (livecrawl) => {
    expect(accept(contents, { ...U, livecrawl })).toMatchObject({ livecrawl });
  });

  it('rejects a livecrawl value /contents does not list', () => {
    reject(contents, { ...U, livecrawl: 'auto' }, { field: 'livecrawl', mentions: '(got "auto")' });
  });

  it.each([1, 10000, 90000])('accepts livecrawlTimeout %s', (livecrawlTimeout) => {
    expect(accept(contents, { ...U, livecrawlTimeout })).toMatchObject({ livecrawlTimeout });
  });

  it.each([
    { livecrawlTimeout: 0, mentions: 'at least 1' },
    { livecrawlTimeout: -5, mentions: 'at least 1' },
    { livecrawlTimeout: 90001, mentions: 'at most 90000' },
  ])('rejects livecrawlTimeout $livecrawlTimeout', ({ livecrawlTimeout, mentions }) => {
    reject(contents, { ...U, livecrawlTimeout }, { field: 'livecrawlTimeout', mentions });
  });

  it.each([-1, 0, 24, 720])('accepts maxAgeHours %s', (maxAgeHours) => {
    expect(accept(contents, { ...U, maxAgeHours })).toMatchObject({ maxAgeHours });
  });

  it.each([
    { maxAgeHours: 721, mentions: 'at most 720' },
    { maxAgeHours: -2, mentions: 'at least -1' },
    { maxAgeHours: 1.5, mentions: 'integer' },
  ])('rejects maxAgeHours $maxAgeHours', ({ maxAgeHours, mentions }) => {
    reject(contents, { ...U, maxAgeHours }, { field: 'maxAgeHours', mentions });
  });

  it.each([0, 100])('accepts subpages %s', (subpages) => {
    expect(accept(contents, { ...U, subpages })).toMatchObject({ subpages });
  });

  it('rejects subpages 101 with SUBPAGES_LIMIT_EXCEEDED', () => {
    reject(contents, { ...U, subpages: 101 }, { field: 'subpages', tag: 'SUBPAGES_LIMIT_EXCEEDED', status: 400 });
  });

  it('rejects negative subpages as an invalid body', () => {
    reject(
      contents,
      { ...U, subpages: -1 },
      { field: 'subpages', tag: 'INVALID_REQUEST_BODY', mentions: 'at least 0' },
    );
  });

  it.each([
    { name: 'one character', target: 'a' },
    { name: '100 characters', target: 'a'.repeat(100) },
    { name: 'an array of 100 strings', target: range(100, (i) => `kw${i}`) },
  ])('accepts subpageTarget of $name', ({ target }) => {
    expect(accept(contents, { ...U, subpageTarget: target })).toMatchObject({ subpageTarget: target });
  });

  it.each([
    { name: '101 characters', target: 'a'.repeat(101), field: 'subpageTarget', mentions: 'at most 100 characters' },
    { name: 'an empty string', target: '', field: 'subpageTarget', mentions: 'must not be empty' },
    {
      name: 'an array of 101 strings',
      target: range(101, (i) => `kw${i}`),
      field: 'subpageTarget',
      mentions: 'at most 100 items',
    },
    {
      name: 'an array item of 101 characters',
      target: ['a'.repeat(101)],
      field: 'subpageTarget[0]',
      mentions: 'at most 100 characters',
    },
  ])('rejects subpageTarget of $name', ({ target, field, mentions }) => {
    reject(contents, { ...U, subpageTarget: target }, { field, mentions });
  });

  it('accepts a valid summary.schema', () => {
    const schema = { type: 'object', properties: { price: { type: 'number' } } };
    expect(accept(contents, { ...U, summary: { query: 'pricing', schema } })).toMatchObject({ summary: { schema } });
  });

  it('rejects an invalid summary.schema with INVALID_JSON_SCHEMA (422)', () => {
    reject(
      contents,
      { ...U, summary: { schema: { type: 'nonsense' } } },
      { field: 'summary.schema', tag: 'INVALID_JSON_SCHEMA', status: 422, mentions: 'not a valid JSON Schema' },
    );
  });

  describe('dynamic highlights', () => {
    const parsed = () => accept(contents, { ...U, highlights: { dynamic: true } });

    it('rejects dynamic: true with maxCharacters', () => {
      reject(
        contents,
        { ...U, highlights: { dynamic: true, maxCharacters: 100 } },
        { field: 'highlights.maxCharacters', mentions: 'dynamic' },
      );
    });

    it('is refused without the beta token', () => {
      rejectBeta(contents, parsed(), [], 'highlights.dynamic', DYNAMIC_TOKEN);
    });

    it('is accepted with the beta token', () => {
      expect(parsed()).toMatchObject({ highlights: { dynamic: true } });
      expect(() => checkBetas(contents, parsed(), new Set([DYNAMIC_TOKEN]))).not.toThrow();
    });
  });
});

describe('POST /context', () => {
  it('defaults tokensNum to "dynamic"', () => {
    expect(accept(context, { query: 'zod refine' })).toEqual({ query: 'zod refine', tokensNum: 'dynamic' });
  });

  it.each([1, 2000])('accepts a query of %s characters', (n) => {
    expect(accept(context, { query: 'q'.repeat(n) })).toMatchObject({ query: 'q'.repeat(n) });
  });

  it.each([
    { body: {}, mentions: 'is required' },
    { body: { query: '' }, mentions: 'must not be empty' },
    { body: { query: 'q'.repeat(2001) }, mentions: 'at most 2000 characters' },
  ])('rejects query ($mentions)', ({ body, mentions }) => {
    reject(context, body, { field: 'query', mentions });
  });

  it.each(['dynamic', 50, 5000, 100000])('accepts tokensNum %s', (tokensNum) => {
    expect(accept(context, { query: 'q', tokensNum })).toMatchObject({ tokensNum });
  });

  it.each([
    { tokensNum: 49, mentions: 'at least 50' },
    { tokensNum: 100001, mentions: 'at most 100000' },
    { tokensNum: 'auto', mentions: '"dynamic" or an integer from 50 to 100000' },
    { tokensNum: 50.5, mentions: '"dynamic" or an integer' },
    { tokensNum: '100', mentions: '"dynamic" or an integer' },
  ])('rejects tokensNum $tokensNum', ({ tokensNum, mentions }) => {
    reject(context, { query: 'q', tokensNum }, { field: 'tokensNum', mentions });
  });
});

describe('monitors', () => {
  const WH = { url: 'https://hooks.example.com/trawl' };
  const SEARCH = { query: 'new rust releases' };
  const MIN = { search: SEARCH, webhook: WH };

  describe('create', () => {
    it('applies the defaults to a minimal request', () => {
      expect(accept(createMonitor, MIN)).toEqual({ search: { ...SEARCH, numResults: 10 }, webhook: WH });
    });

    it.each([
      { body: { webhook: WH }, field: 'search' },
      { body: { search: {}, webhook: WH }, field: 'search.query' },
      { body: { search: SEARCH }, field: 'webhook' },
      { body: { search: SEARCH, webhook: {} }, field: 'webhook.url' },
    ])('requires $field', ({ body, field }) => {
      reject(createMonitor, body, { field, mentions: 'is required' });
    });

    it('rejects search.type with a message that it must not be set', () => {
      reject(
        createMonitor,
        { ...MIN, search: { ...SEARCH, type: 'fast' } },
        { field: 'search.type', mentions: 'must not be set' },
      );
    });

    it.each(['includeText', 'excludeText'])('rejects search.%s', (key) => {
      reject(
        createMonitor,
        { ...MIN, search: { ...SEARCH, [key]: ['rust'] } },
        { field: `search.${key}`, mentions: `no ${key}` },
      );
    });

    it.each([1, 100])('accepts search.numResults %s', (numResults) => {
      expect(accept(createMonitor, { ...MIN, search: { ...SEARCH, numResults } })).toMatchObject({
        search: { numResults },
      });
    });

    it.each([
      { numResults: 0, tag: 'INVALID_NUM_RESULTS' },
      { numResults: 101, tag: 'NUM_RESULTS_EXCEEDED' },
    ] as const)('rejects search.numResults $numResults', ({ numResults, tag }) => {
      reject(createMonitor, { ...MIN, search: { ...SEARCH, numResults } }, { field: 'search.numResults', tag });
    });

    it.each(['1h', '24h', '1d', '12h', '7d'])('accepts trigger.period %s', (period) => {
      expect(accept(createMonitor, { ...MIN, trigger: { type: 'interval', period } })).toMatchObject({
        trigger: { type: 'interval', period },
      });
    });

    it.each([
      { period: '30m', mentions: 'single unit' },
      { period: '0h', mentions: 'at least 1 hour' },
      { period: '0d', mentions: 'at least 1 hour' },
      { period: '1h30m', mentions: 'single unit' },
      { period: '1w', mentions: 'single unit' },
      { period: 'hourly', mentions: 'single unit' },
    ])('rejects trigger.period $period with 400', ({ period, mentions }) => {
      reject(
        createMonitor,
        { ...MIN, trigger: { type: 'interval', period } },
        { field: 'trigger.period', status: 400, mentions },
      );
    });

    it('rejects a trigger type other than interval', () => {
      reject(
        createMonitor,
        { ...MIN, trigger: { type: 'cron', period: '1h' } },
        { field: 'trigger.type', mentions: '"interval"' },
      );
    });

    // HTTPS and a public address are the operator's policy, checked by the monitors service at creation
    // and by the sender at every delivery (test/e2e/monitors-webhooks.test.ts); the schema checks the form
    it.each([
      { url: 'ftp://example.com/hook', mentions: 'https://' },
      { url: 'example.com/hook', mentions: 'https://' },
      { url: 'javascript:alert(1)', mentions: 'https://' },
    ])('rejects webhook.url $url', ({ url, mentions }) => {
      reject(createMonitor, { ...MIN, webhook: { url } }, { field: 'webhook.url', status: 400, mentions });
    });

    it.each(['https://example.com', 'https://hooks.example.com/a/b?x=1', 'https://8.8.8.8/hook'])(
      'accepts webhook.url %s',
      (url) => {
        expect(accept(createMonitor, { ...MIN, webhook: { url } })).toMatchObject({ webhook: { url } });
      },
    );

    it.each([
      { events: ['monitor.run.completed'] },
      {
        events: [
          'monitor.created',
          'monitor.updated',
          'monitor.deleted',
          'monitor.run.created',
          'monitor.run.completed',
        ],
      },
    ])('accepts webhook.events $events', ({ events }) => {
      expect(accept(createMonitor, { ...MIN, webhook: { ...WH, events } })).toMatchObject({ webhook: { events } });
    });

    it('rejects an unknown event kind at its index', () => {
      reject(
        createMonitor,
        { ...MIN, webhook: { ...WH, events: ['monitor.created', 'monitor.exploded'] } },
        { field: 'webhook.events[1]', mentions: '(got "monitor.exploded")' },
      );
    });

    it('accepts a metadata object and rejects a non-object', () => {
      const metadata = { slackChannel: 'C123', team: 'infra', priority: 2 };
      expect(accept(createMonitor, { ...MIN, metadata })).toMatchObject({ metadata });
      reject(createMonitor, { ...MIN, metadata: ['a'] }, { field: 'metadata' });
    });

    it.each([
      { name: 'text', schema: { type: 'text' } },
      { name: 'object', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
    ])('accepts outputSchema $name', ({ schema }) => {
      expect(accept(createMonitor, { ...MIN, outputSchema: schema })).toMatchObject({ outputSchema: schema });
    });

    it('rejects outputSchema of type object without properties', () => {
      reject(
        createMonitor,
        { ...MIN, outputSchema: { type: 'object' } },
        { field: 'outputSchema.properties', mentions: 'required' },
      );
    });

    it('rejects an invalid JSON Schema in outputSchema with INVALID_JSON_SCHEMA (422)', () => {
      reject(
        createMonitor,
        { ...MIN, outputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
        { field: 'outputSchema', tag: 'INVALID_JSON_SCHEMA', status: 422 },
      );
    });

    it('accepts the monitor contents options', () => {
      const c = {
        text: { maxCharacters: 2000 },
        highlights: { query: 'release', maxCharacters: 500 },
        summary: { query: 'what changed', maxTokens: 200 },
        extras: { links: 5, codeBlocks: 1000 },
        livecrawl: 'auto',
        livecrawlTimeout: 0,
        subpages: 100,
        subpageTarget: ['changelog'],
        filterEmptyResults: true,
      };
      expect(accept(createMonitor, { ...MIN, search: { ...SEARCH, contents: c } })).toMatchObject({
        search: { contents: c },
      });
    });

    it.each([
      { c: { livecrawl: 'always', maxAgeHours: 1 }, field: 'search.contents.livecrawl', tag: undefined },
      { c: { livecrawlTimeout: 90001 }, field: 'search.contents.livecrawlTimeout', tag: undefined },
      { c: { extras: { links: 1001 } }, field: 'search.contents.extras.links', tag: undefined },
      { c: { subpages: 101 }, field: 'search.contents.subpages', tag: 'SUBPAGES_LIMIT_EXCEEDED' },
      { c: { highlights: { dynamic: true } }, field: 'search.contents.highlights.dynamic', tag: undefined },
    ] as const)('rejects search.contents at $field', ({ c, field, tag }) => {
      reject(createMonitor, { ...MIN, search: { ...SEARCH, contents: c } }, tag ? { field, tag } : { field });
    });
  });

  describe('update', () => {
    it('accepts an empty patch', () => {
      expect(accept(updateMonitor, {})).toEqual({});
    });

    it.each(['active', 'paused'])('accepts status %s', (status) => {
      expect(accept(updateMonitor, { status })).toEqual({ status });
    });

    it('rejects status disabled', () => {
      reject(
        updateMonitor,
        { status: 'disabled' },
        { field: 'status', status: 400, mentions: '"disabled" cannot be set' },
      );
    });

    it('accepts null for trigger, outputSchema, metadata and name', () => {
      const nulls = { trigger: null, outputSchema: null, metadata: null, name: null };
      expect(accept(updateMonitor, nulls)).toEqual(nulls);
    });

    it('accepts a partial search and webhook', () => {
      const patch = { search: { numResults: 20 }, webhook: { events: ['monitor.run.completed'] } };
      expect(accept(updateMonitor, patch)).toEqual(patch);
    });

    it.each([
      { body: { search: { type: 'deep' } }, field: 'search.type', mentions: 'must not be set' },
      { body: { webhook: { url: 'ftp://example.com/hook' } }, field: 'webhook.url', mentions: 'https://' },
      { body: { trigger: { type: 'interval', period: '30m' } }, field: 'trigger.period', mentions: 'single unit' },
      { body: { outputSchema: { type: 'object' } }, field: 'outputSchema.properties', mentions: 'required' },
      { body: { webhook: null }, field: 'webhook', mentions: 'object' },
    ])('rejects $field', ({ body, field, mentions }) => {
      reject(updateMonitor, body, { field, mentions });
    });
  });

  describe.each([
    { name: 'list monitors', operation: listMonitors },
    { name: 'list runs', operation: listMonitorRuns },
  ])('$name query', ({ operation }) => {
    it('defaults limit to 50', () => {
      expect(accept(operation, {}, 'query')).toEqual({ limit: 50 });
    });

    it.each([
      { limit: '1', parsed: 1 },
      { limit: '100', parsed: 100 },
    ])('coerces limit $limit', ({ limit, parsed }) => {
      expect(accept(operation, { limit }, 'query')).toEqual({ limit: parsed });
    });

    it.each([
      { limit: '0', mentions: 'at least 1' },
      { limit: '101', mentions: 'at most 100' },
      { limit: '2.5', mentions: 'integer' },
      { limit: 'abc', mentions: 'number' },
    ])('rejects limit $limit with INVALID_REQUEST_QUERY', ({ limit, mentions }) => {
      reject(operation, { limit }, { field: 'limit', tag: 'INVALID_REQUEST_QUERY', status: 400, mentions }, 'query');
    });
  });

  it.each(['active', 'paused', 'disabled'])('list accepts status filter %s', (status) => {
    expect(accept(listMonitors, { status }, 'query')).toEqual({ status, limit: 50 });
  });

  it('list rejects an unknown status filter', () => {
    reject(
      listMonitors,
      { status: 'deleted' },
      { field: 'status', tag: 'INVALID_REQUEST_QUERY', mentions: '(got "deleted")' },
      'query',
    );
  });
});

describe('POST /agent/runs', () => {
  const A = { query: 'list 20 EU robotics startups with their CTO' };

  it("defaults effort to 'auto'", () => {
    expect(accept(createAgentRun, A)).toEqual({ ...A, effort: 'auto' });
  });

  it('requires query', () => {
    reject(createAgentRun, {}, { field: 'query', mentions: 'is required' });
  });

  it.each(['minimal', 'low', 'medium', 'high', 'xhigh', 'auto', 'max'])('accepts effort %s', (effort) => {
    expect(accept(createAgentRun, { ...A, effort })).toMatchObject({ effort });
  });

  it('rejects an unknown effort', () => {
    reject(createAgentRun, { ...A, effort: 'extreme' }, { field: 'effort', mentions: '(got "extreme")' });
  });

  it.each([
    { effort: undefined, maxCostDollars: 1 },
    { effort: 'auto', maxCostDollars: 5 },
    { effort: 'max', maxCostDollars: 100 },
  ])('accepts budget.maxCostDollars $maxCostDollars with effort $effort', ({ effort, maxCostDollars }) => {
    expect(accept(createAgentRun, { ...A, effort, budget: { maxCostDollars } })).toMatchObject({
      effort: effort ?? 'auto',
      budget: { maxCostDollars },
    });
  });

  it.each([
    { maxCostDollars: 0.5, mentions: 'at least 1' },
    { maxCostDollars: 101, mentions: 'at most 100' },
  ])('rejects budget.maxCostDollars $maxCostDollars', ({ maxCostDollars, mentions }) => {
    reject(createAgentRun, { ...A, budget: { maxCostDollars } }, { field: 'budget.maxCostDollars', mentions });
  });

  it.each(['minimal', 'low', 'medium', 'high', 'xhigh'])('rejects a budget with fixed effort %s', (effort) => {
    reject(
      createAgentRun,
      { ...A, effort, budget: { maxCostDollars: 5 } },
      { field: 'budget.maxCostDollars', status: 400, mentions: `effort "${effort}"` },
    );
  });

  describe('effort max beta', () => {
    const parsed = () => accept(createAgentRun, { ...A, effort: 'max' });

    it('is refused without the beta token', () => {
      rejectBeta(createAgentRun, parsed(), [], 'effort', MAX_EFFORT_TOKEN);
    });

    it('is refused with only the dynamic highlights token', () => {
      rejectBeta(createAgentRun, parsed(), [DYNAMIC_TOKEN], 'effort', MAX_EFFORT_TOKEN);
    });

    it('is accepted with the token', () => {
      expect(() => checkBetas(createAgentRun, parsed(), new Set([MAX_EFFORT_TOKEN]))).not.toThrow();
    });

    it('needs no token for effort auto', () => {
      expect(() => checkBetas(createAgentRun, accept(createAgentRun, A), new Set())).not.toThrow();
    });
  });

  it('accepts a valid outputSchema with contact formats', () => {
    const outputSchema = {
      type: 'object',
      properties: {
        people: {
          type: 'array',
          maxItems: 20,
          items: {
            type: 'object',
            properties: {
              email: { type: ['string', 'null'], format: 'email' },
              site: { type: 'string', format: 'uri' },
            },
          },
        },
      },
    };
    expect(accept(createAgentRun, { ...A, outputSchema })).toMatchObject({ outputSchema });
  });

  it('rejects an invalid outputSchema with INVALID_JSON_SCHEMA (422)', () => {
    reject(
      createAgentRun,
      { ...A, outputSchema: { type: 'nonsense' } },
      { field: 'outputSchema', tag: 'INVALID_JSON_SCHEMA', status: 422, mentions: 'not a valid JSON Schema' },
    );
  });
});

describe('messages found by review', () => {
  it('rejects a webhook URL that is not a URL with 400, not a crash', () => {
    const op = OPERATIONS.find((o) => o.name === 'monitors.create')!;
    reject(
      op,
      { search: { query: 'x' }, webhook: { url: 'not a url' } },
      {
        field: 'webhook.url',
        mentions: 'must be an absolute https:// URL',
      },
    );
  });

  it('says a non-numeric limit must be a number', () => {
    const op = OPERATIONS.find((o) => o.name === 'monitors.list')!;
    expect(() => parseOrThrow(op.query!, { limit: 'abc' }, 'query')).toThrow(/limit: must be a number/);
  });

  it('says a missing findSimilar url is required', () => {
    const op = OPERATIONS.find((o) => o.name === 'findSimilar')!;
    expect(() => parseOrThrow(op.body!, {}, 'body')).toThrow(/url: is required/);
  });
});
