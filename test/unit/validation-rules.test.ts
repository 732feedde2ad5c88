import { it } from 'vitest';
import '../../src/ops/validation.js';
import { parseOrThrow } from '../../src/ops/validation.js';
import { searchOp, findSimilarOp } from '../../src/ops/search.ops.js';
import { contentsOp } from '../../src/ops/contents.ops.js';
import { contextOp } from '../../src/ops/context.ops.js';
import { createMonitorOp, updateMonitorOp, listMonitorsOp } from '../../src/ops/monitors.ops.js';
import { createAgentRunOp } from '../../src/ops/agent-runs.ops.js';
import { checkBetas } from '../../src/ops/define-op.js';
import { ServiceError } from '../../src/errors.js';

function p(label: string, schema: any, v: unknown, part: 'body' | 'query' = 'body') {
  try {
    const r = parseOrThrow(schema, v, part);
    console.log('OK  ', label, JSON.stringify(r).slice(0, 200));
  } catch (e) {
    const s = e as ServiceError;
    console.log('ERR ', label, s.tag, s.status, s.field, '|', s.message);
  }
}
const q = { query: 'x' };
const wh = { url: 'https://example.com/hook' };
it('probe', () => {
  const S = searchOp.body!;
  p('search empty', S, {});
  p('search min', S, q);
  p('neural', S, { ...q, type: 'neural' });
  p('keyword', S, { ...q, type: 'keyword' });
  p('nr0', S, { ...q, numResults: 0 });
  p('nr101', S, { ...q, numResults: 101 });
  p('nr2.5', S, { ...q, numResults: 2.5 });
  p('nr"5"', S, { ...q, numResults: '5' });
  p('inc1201', S, { ...q, includeDomains: Array.from({ length: 1201 }, (_, i) => `d${i}.com`) });
  p('exc1201', S, { ...q, excludeDomains: Array.from({ length: 1201 }, (_, i) => `d${i}.com`) });
  p('loc USA', S, { ...q, userLocation: 'USA' });
  p('loc u1', S, { ...q, userLocation: 'u1' });
  p('date yesterday', S, { ...q, startPublishedDate: 'yesterday' });
  p('date ok', S, { ...q, startPublishedDate: '2025-01-31', endPublishedDate: '2025-01-31T12:00:00Z' });
  p('date ok2', S, { ...q, startPublishedDate: '2025-01-31T12:00:00.000+02:00' });
  p('date ok3', S, { ...q, startPublishedDate: '2025-01-31T12:00:00' });
  p('date bad month', S, { ...q, startPublishedDate: '2025-13-01' });
  for (const f of ['startPublishedDate', 'endPublishedDate', 'excludeDomains', 'includeText', 'excludeText']) {
    const val = f.endsWith('Date') ? '2025-01-01' : f === 'excludeDomains' ? ['a.com'] : ['ai'];
    p('company ' + f, S, { ...q, category: 'company', [f]: val });
    p('people ' + f, S, { ...q, category: 'people', [f]: val });
    p('news ' + f, S, { ...q, category: 'news', [f]: val });
  }
  p('company includeDomains', S, { ...q, category: 'company', includeDomains: ['a.com'] });
  p('includeUrls', S, { ...q, includeUrls: ['a'] });
  p('excludeUrls', S, { ...q, excludeUrls: ['a'] });
  p('tokensNum', S, { ...q, tokensNum: 100 });
  p('text top', S, { ...q, text: true });
  p('unknown', S, { ...q, bogus: 1 });
  p('autoprompt', S, { ...q, useAutoprompt: true });
  p('text max 0', S, { ...q, contents: { text: { maxCharacters: 0 } } });
  p('text max 10001', S, { ...q, contents: { text: { maxCharacters: 10001 } } });
  p('text max 10000', S, { ...q, contents: { text: { maxCharacters: 10000 } } });
  p('text max 1', S, { ...q, contents: { text: { maxCharacters: 1 } } });
  p('dyn+max', S, { ...q, contents: { highlights: { dynamic: true, maxCharacters: 100 } } });
  p('dyn', S, { ...q, contents: { highlights: { dynamic: true } } });
  p('livecrawl+maxAge', S, { ...q, contents: { livecrawl: 'always', maxAgeHours: 1 } });
  p('os text', S, { ...q, outputSchema: { type: 'text' } });
  p('os obj', S, { ...q, outputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } });
  p('os depth3', S, {
    ...q,
    outputSchema: {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'string' } } } } },
      },
    },
  });
  p('os depth2', S, {
    ...q,
    outputSchema: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } },
  });
  const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }]));
  p('os 11', S, { ...q, outputSchema: { type: 'object', properties: props(11) } });
  p('os 10', S, { ...q, outputSchema: { type: 'object', properties: props(10) } });
  p('os noprops', S, { ...q, outputSchema: { type: 'object' } });
  p('os citations', S, { ...q, outputSchema: { type: 'object', properties: { citations: { type: 'array' } } } });
  p('os nonsense', S, { ...q, outputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } });
  p('hipaa auto', S, { ...q, compliance: 'hipaa' });
  p('hipaa fast', S, { ...q, compliance: 'hipaa', type: 'fast' });
  p('hipaa instant', S, { ...q, compliance: 'hipaa', type: 'instant' });
  const F = findSimilarOp.body!;
  p('fs ftp', F, { url: 'ftp://example.com' });
  p('fs notaurl', F, { url: 'example' });
  p('fs ok', F, { url: 'https://example.com' });
  p('fs http', F, { url: 'http://example.com/a' });
  p('fs nr101', F, { url: 'https://example.com', numResults: 101 });
  p('fs nr100', F, { url: 'https://example.com', numResults: 100 });
  p('fs it6', F, { url: 'https://example.com', includeText: ['a b c d e f'] });
  p('fs it5', F, { url: 'https://example.com', includeText: ['a b c d e'] });
  p('fs it2', F, { url: 'https://example.com', includeText: ['a', 'b'] });
  p('fs et6', F, { url: 'https://example.com', excludeText: ['a b c d e f'] });
  const C = contentsOp.body!;
  p('c both', C, { ids: ['a'], urls: ['b'] });
  p('c neither', C, {});
  p('c 0', C, { urls: [] });
  p('c 101', C, { urls: Array.from({ length: 101 }, (_, i) => `https://e.com/${i}`) });
  p('c 100', C, { urls: Array.from({ length: 100 }, (_, i) => `https://e.com/${i}`) });
  p('c 2049', C, { urls: ['a'.repeat(2049)] });
  p('c ids 2049', C, { ids: ['ok', 'a'.repeat(2049)] });
  p('c 2048', C, { urls: ['a'.repeat(2048)] });
  p('c empty str', C, { urls: [''] });
  p('c nulls', C, {
    urls: ['a'],
    ids: null,
    compliance: null,
    text: null,
    highlights: null,
    summary: null,
    extras: null,
    context: null,
    livecrawl: null,
    livecrawlTimeout: null,
    maxAgeHours: null,
    subpages: null,
    subpageTarget: null,
    filterEmptyResults: null,
  });
  p('c ids nulls', C, { ids: ['a'], urls: null });
  p('c text 0', C, { urls: ['a'], text: { maxCharacters: 0 } });
  p('c text 10001', C, { urls: ['a'], text: { maxCharacters: 10001 } });
  p('c hl 0', C, { urls: ['a'], highlights: { maxCharacters: 0 } });
  p('c hl 10001', C, { urls: ['a'], highlights: { maxCharacters: 10001 } });
  p('c hl dep', C, { urls: ['a'], highlights: { numSentences: 2, highlightsPerUrl: 1 } });
  p('c hl numSentences 0', C, { urls: ['a'], highlights: { numSentences: 0 } });
  p('c extras 1001', C, { urls: ['a'], extras: { codeBlocks: 1001 } });
  p('c extras -1', C, { urls: ['a'], extras: { links: -1 } });
  p('c extras 1000', C, { urls: ['a'], extras: { links: 1000, imageLinks: 0 } });
  p('c lc+mah', C, { urls: ['a'], livecrawl: 'always', maxAgeHours: 1 });
  p('c lc+mah null', C, { urls: ['a'], livecrawl: 'always', maxAgeHours: null });
  p('c lt 0', C, { urls: ['a'], livecrawlTimeout: 0 });
  p('c lt 90001', C, { urls: ['a'], livecrawlTimeout: 90001 });
  p('c lt 90000', C, { urls: ['a'], livecrawlTimeout: 90000 });
  p('c mah 721', C, { urls: ['a'], maxAgeHours: 721 });
  p('c mah -2', C, { urls: ['a'], maxAgeHours: -2 });
  p('c sp 101', C, { urls: ['a'], subpages: 101 });
  p('c sp -1', C, { urls: ['a'], subpages: -1 });
  p('c st 101', C, { urls: ['a'], subpageTarget: 'a'.repeat(101) });
  p('c st empty', C, { urls: ['a'], subpageTarget: '' });
  p('c st arr101', C, { urls: ['a'], subpageTarget: Array.from({ length: 101 }, () => 'x') });
  p('c st arr100', C, { urls: ['a'], subpageTarget: Array.from({ length: 100 }, () => 'x') });
  p('c st arr item101', C, { urls: ['a'], subpageTarget: ['a'.repeat(101)] });
  p('c summary bad', C, { urls: ['a'], summary: { schema: { type: 'nonsense' } } });
  p('c summary ok', C, { urls: ['a'], summary: { schema: { type: 'object', properties: { a: { type: 'string' } } } } });
  p('c dyn', C, { urls: ['a'], highlights: { dynamic: true } });
  p('c dyn+max', C, { urls: ['a'], highlights: { dynamic: true, maxCharacters: 5 } });
  const X = contextOp.body!;
  p('x empty', X, { query: '' });
  p('x 2001', X, { query: 'a'.repeat(2001) });
  p('x 2000', X, { query: 'a'.repeat(2000) });
  p('x none', X, {});
  for (const t of ['dynamic', 50, 100000, 49, 100001, 'auto', 50.5, '100'])
    p('x tok ' + t, X, { query: 'a', tokensNum: t });
  const M = createMonitorOp.body!;
  p('m min', M, { search: q, webhook: wh });
  p('m noquery', M, { search: {}, webhook: wh });
  p('m type', M, { search: { ...q, type: 'fast' }, webhook: wh });
  p('m includeText', M, { search: { ...q, includeText: ['a'] }, webhook: wh });
  p('m nr0', M, { search: { ...q, numResults: 0 }, webhook: wh });
  p('m nr101', M, { search: { ...q, numResults: 101 }, webhook: wh });
  for (const per of ['1h', '24h', '1d', '30m', '0h', '1h30m', '1w', '0d', ''])
    p('m period ' + per, M, { search: q, webhook: wh, trigger: { type: 'interval', period: per } });
  p('m trigger type', M, { search: q, webhook: wh, trigger: { type: 'cron', period: '1h' } });
  for (const u of [
    'http://example.com/h',
    'https://localhost/h',
    'https://127.0.0.1/h',
    'https://10.0.0.5/h',
    'https://192.168.1.1/h',
    'https://[::1]/h',
    'https://example.com/h',
    'not a url',
  ])
    p('m wh ' + u, M, { search: q, webhook: { url: u } });
  p('m events', M, { search: q, webhook: { ...wh, events: ['monitor.created', 'monitor.run.completed'] } });
  p('m events all', M, {
    search: q,
    webhook: {
      ...wh,
      events: ['monitor.created', 'monitor.updated', 'monitor.deleted', 'monitor.run.created', 'monitor.run.completed'],
    },
  });
  p('m events bad', M, { search: q, webhook: { ...wh, events: ['monitor.created', 'monitor.exploded'] } });
  p('m metadata', M, { search: q, webhook: wh, metadata: { slack: 'C123', n: 1 } });
  p('m nowebhook', M, { search: q });
  const U = updateMonitorOp.body!;
  p('u disabled', U, { status: 'disabled' });
  p('u paused', U, { status: 'paused' });
  p('u nulls', U, { trigger: null, outputSchema: null, metadata: null });
  p('u empty', U, {});
  const L = listMonitorsOp.query!;
  p('l {}', L, {}, 'query');
  p('l 0', L, { limit: '0' }, 'query');
  p('l 101', L, { limit: '101' }, 'query');
  p('l 100', L, { limit: '100' }, 'query');
  p('l abc', L, { limit: 'abc' }, 'query');
  p('l status', L, { status: 'disabled' }, 'query');
  p('l status bad', L, { status: 'deleted' }, 'query');
  const A = createAgentRunOp.body!;
  p('a min', A, q);
  p('a bad effort', A, { ...q, effort: 'extreme' });
  for (const e of ['minimal', 'low', 'medium', 'high', 'xhigh', 'auto', 'max'])
    p('a budget ' + e, A, { ...q, effort: e, budget: { maxCostDollars: 5 } });
  p('a budget 0.5', A, { ...q, budget: { maxCostDollars: 0.5 } });
  p('a budget 101', A, { ...q, budget: { maxCostDollars: 101 } });
  p('a budget 100', A, { ...q, budget: { maxCostDollars: 100 } });
  p('a budget 1', A, { ...q, budget: { maxCostDollars: 1 } });
  p('a os bad', A, { ...q, outputSchema: { type: 'nonsense' } });
  p('a os ok', A, {
    ...q,
    outputSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
  });
  for (const [op, inp] of [
    [searchOp, { contents: { highlights: { dynamic: true } } }],
    [contentsOp, { highlights: { dynamic: true } }],
    [createAgentRunOp, { effort: 'max' }],
  ] as const) {
    try {
      checkBetas(op, inp, new Set());
      console.log('beta OK', op.name);
    } catch (e) {
      const s = e as ServiceError;
      console.log('beta ERR', op.name, s.tag, s.status, s.field, s.message);
    }
  }
});
