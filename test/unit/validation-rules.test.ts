import { it } from 'vitest';
import '../../src/ops/validation.js';
import { parseOrThrow } from '../../src/ops/validation.js';
import { searchOp, findSimilarOp } from '../../src/ops/search.ops.js';
import { contentsOp } from '../../src/ops/contents.ops.js';
import { createMonitorOp, updateMonitorOp } from '../../src/ops/monitors.ops.js';
import { ServiceError } from '../../src/errors.js';

function p(label: string, schema: any, v: unknown, part: 'body' | 'query' = 'body') {
  try {
    const r = parseOrThrow(schema, v, part);
    console.log('OK  ', label, JSON.stringify(r).slice(0, 300));
  } catch (e) {
    const s = e as ServiceError;
    console.log('ERR ', label, s.name, s.tag, s.field, '|', s.message);
  }
}
const q = { query: 'x' };
it('probe', () => {
  const S = searchOp.body!;
  p('search empty', S, {});
  p('search q empty', S, { query: '' });
  p('inc1200', S, {
    ...q,
    includeDomains: Array.from({ length: 1200 }, (_, i) => `d${i}.com`),
    excludeDomains: Array.from({ length: 1200 }, (_, i) => `d${i}.com`),
  });
  p('contents defaults', S, { ...q, contents: { text: true, highlights: {}, summary: { query: 's' }, extras: {} } });
  p('contents text obj', S, { ...q, contents: { text: {} } });
  p('dyn false + max', S, { ...q, contents: { highlights: { dynamic: false, maxCharacters: 50 } } });
  p('numSentences in contents', S, { ...q, contents: { numSentences: 2 } });
  p('hipaa summary', S, { ...q, compliance: 'hipaa', type: 'fast', contents: { summary: true } });
  p('hipaa maxAge', S, { ...q, compliance: 'hipaa', type: 'fast', contents: { maxAgeHours: 0 } });
  p('hipaa maxAge -1', S, { ...q, compliance: 'hipaa', type: 'fast', contents: { maxAgeHours: -1 } });
  p('compliance other', S, { ...q, compliance: 'gdpr' });
  p('category bad', S, { ...q, category: 'blog' });
  p('os text desc', S, { ...q, outputSchema: { type: 'text', description: 'short' } });
  p('os type bad', S, { ...q, outputSchema: { type: 'array' } });
  p('os citation nested', S, {
    ...q,
    outputSchema: {
      type: 'object',
      properties: { a: { type: 'object', properties: { Citation: { type: 'string' } } } },
    },
  });
  p('os grounding', S, { ...q, outputSchema: { type: 'object', properties: { grounding: { type: 'string' } } } });
  p('os items depth', S, {
    ...q,
    outputSchema: {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } },
    },
  });
  p('os items depth3', S, {
    ...q,
    outputSchema: {
      type: 'object',
      properties: {
        a: {
          type: 'array',
          items: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'string' } } } } },
        },
      },
    },
  });
  const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }]));
  p('os nested count 11', S, {
    ...q,
    outputSchema: {
      type: 'object',
      properties: {
        ...props(5),
        n: {
          type: 'object',
          properties: {
            a: { type: 'string' },
            b: { type: 'string' },
            c: { type: 'string' },
            d: { type: 'string' },
            e: { type: 'string' },
          },
        },
      },
    },
  });
  p('it 6 search', S, { ...q, includeText: ['a b c d e f'] });
  p('lt 0', S, { ...q, contents: { livecrawlTimeout: 0 } });
  p('sp 101', S, { ...q, contents: { subpages: 101 } });
  p('verbosity', S, { ...q, contents: { text: { verbosity: 'huge' } } });
  p('sections', S, { ...q, contents: { text: { includeSections: ['body', 'ads'] } } });
  const F = findSimilarOp.body!;
  p('fs query', F, { url: 'https://example.com', query: 'x' });
  p('fs no url', F, {});
  p('fs dyn', F, { url: 'https://example.com', contents: { highlights: { dynamic: true, maxCharacters: 3 } } });
  const C = contentsOp.body!;
  p('c nulls', C, {
    urls: ['a'],
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
  p('c context 0', C, { urls: ['a'], context: { maxCharacters: 0 } });
  p('c context 10001', C, { urls: ['a'], context: { maxCharacters: 10001 } });
  p('c query', C, { urls: ['a'], query: 'x' });
  p('c contents', C, { urls: ['a'], contents: {} });
  p('c summary bool', C, { urls: ['a'], summary: true });
  p('c subpageTarget arr empty', C, { urls: ['a'], subpageTarget: [] });
  p('c ids only', C, { ids: ['a'] });
  const M = createMonitorOp.body!;
  const wh = { url: 'https://example.com/hook' };
  for (const u of [
    'not a url',
    'ftp://example.com/x',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://169.254.169.254/',
    'https://172.16.0.1/',
    'https://[fd00::1]/',
    'https://intranet/',
    'https://printer.local/',
    'https://a.localhost/',
    'https://localhost./',
    'https://8.8.8.8/',
    'https://[2606:4700::1111]/',
  ])
    p('m wh ' + u, M, { search: q, webhook: { url: u } });
  p('m os obj noprops', M, { search: q, webhook: wh, outputSchema: { type: 'object' } });
  p('m os bad', M, {
    search: q,
    webhook: wh,
    outputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } },
  });
  p('m os deep', M, {
    search: q,
    webhook: wh,
    outputSchema: {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'string' } } } } },
      },
    },
  });
  p('m metadata array', M, { search: q, webhook: wh, metadata: ['a'] });
  p('m contents lt 0', M, { search: { ...q, contents: { livecrawlTimeout: 0 } }, webhook: wh });
  p('m contents lc+mah', M, { search: { ...q, contents: { livecrawl: 'auto', maxAgeHours: 1 } }, webhook: wh });
  p('m contents hl dyn', M, { search: { ...q, contents: { highlights: { dynamic: true } } }, webhook: wh });
  p('m contents summary maxTokens', M, { search: { ...q, contents: { summary: { maxTokens: 100 } } }, webhook: wh });
  const U = updateMonitorOp.body!;
  p('u active', U, { status: 'active' });
  p('u search type', U, { search: { type: 'fast' } });
  p('u webhook http', U, { webhook: { url: 'http://example.com' } });
  p('u trigger 30m', U, { trigger: { type: 'interval', period: '30m' } });
  p('u metadata null name null', U, { metadata: null, name: null });
  p('u webhook null', U, { webhook: null });
});
