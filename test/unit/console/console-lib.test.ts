/**
 * The console's plain-TypeScript helpers (console/src/lib), which the pages build on: the event-stream
 * parser fed in every possible split, the one http(s) link rule, the CSV of the usage table, the usage
 * page's sums, and the "Copy as" snippets (run through a real shell and parsed as JavaScript).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from '../../../console/src/lib/sse.js';
import { safeHref } from '../../../console/src/lib/safe-url.js';
import { toCsv } from '../../../console/src/lib/csv.js';
import { byKey, daysBetween, perDay, totals, usageCsv, type UsageRow } from '../../../console/src/lib/usage.js';
import { shellQuote, snippetsFor } from '../../../console/src/lib/snippets.js';

function parse(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

describe('console event-stream parser', () => {
  const stream =
    ': keep-alive\r\n\r\nid: 1\r\nevent: agent_run.started\r\ndata: {"a":1}\r\n\r\n' +
    'data: line one\ndata:line two\n\n' +
    'id: 7\revent: agent_run.completed\rdata: {"done":true}\r\r' +
    'data: [DONE]\n\ndata: never ended';
  const expected: SseEvent[] = [
    { id: '1', event: 'agent_run.started', data: '{"a":1}' },
    { id: '1', event: 'message', data: 'line one\nline two' },
    { id: '7', event: 'agent_run.completed', data: '{"done":true}' },
    { id: '7', event: 'message', data: '[DONE]' },
  ];

  it('reads events, ids, names, joined data lines and every kind of line end; drops an unfinished event', () => {
    expect(parse([stream])).toEqual(expected);
  });

  it('gives the same events whatever the chunk boundaries (a CRLF split between two chunks included)', () => {
    for (let i = 0; i <= stream.length; i++) {
      expect(parse([stream.slice(0, i), stream.slice(i)])).toEqual(expected);
    }
    expect(parse([...stream])).toEqual(expected);
  });
});

describe('console links', () => {
  it('links http(s) URLs only', () => {
    expect(safeHref('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeHref('http://example.com')).toBe('http://example.com/');
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'import://handbook/42',
      '/relative/path',
      '',
      null,
      42,
    ]) {
      expect(safeHref(bad), String(bad)).toBeNull();
    }
  });
});

describe('console CSV', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    const csv = toCsv(
      ['name', 'n'],
      [
        ['a,b', 1],
        ['say "hi"', 2.5],
        ['=HYPERLINK("x")', -3],
        ['line\nbreak', null],
      ],
    );
    expect(csv).toBe('name,n\r\n"a,b",1\r\n"say ""hi""",2.5\r\n"\'=HYPERLINK(""x"")",-3\r\n"line\nbreak",\r\n');
  });
});

const row = (day: string, over: Partial<UsageRow> = {}): UsageRow => ({
  day,
  teamId: 'team_1',
  team: 'platform',
  keyId: 'key_1',
  keyName: 'ci',
  operation: 'search',
  requests: 1,
  spent: 0.1,
  p50Ms: null,
  p95Ms: null,
  ...over,
});

describe('console usage sums', () => {
  it('lists every UTC day of a range, both ends included, across a month', () => {
    expect(daysBetween('2025-01-30', '2025-02-02')).toEqual(['2025-01-30', '2025-01-31', '2025-02-01', '2025-02-02']);
  });

  it('sums per day with zero days, weighs latency by requests, and adds dollars without float dust', () => {
    const rows = [
      row('2025-01-01', { requests: 3, spent: 0.1, p50Ms: 100, p95Ms: 400 }),
      row('2025-01-01', { requests: 1, spent: 0.2, p50Ms: 500, p95Ms: 800, operation: 'contents' }),
      row('2025-01-03', { requests: 2, spent: 0.7 }),
    ];
    expect(perDay(rows, daysBetween('2025-01-01', '2025-01-03'))).toEqual([
      { day: '2025-01-01', requests: 4, spent: 0.3, p50Ms: 200, p95Ms: 500 },
      { day: '2025-01-02', requests: 0, spent: 0, p50Ms: null, p95Ms: null },
      { day: '2025-01-03', requests: 2, spent: 0.7, p50Ms: null, p95Ms: null },
    ]);
    expect(totals(rows)).toEqual({ requests: 6, spent: 1 });
  });

  it('names keys with their team only when several teams show', () => {
    const one = [row('2025-01-01'), row('2025-01-01', { keyId: 'key_2', keyName: null, requests: 5 })];
    expect(byKey(one).map((g) => g.label)).toEqual(['key_2', 'ci']);
    const two = [...one, row('2025-01-01', { teamId: 'team_2', team: 'research' })];
    expect(byKey(two).map((g) => g.label)).toEqual(['platform / key_2', 'platform / ci', 'research / ci']);
  });

  it('writes the CSV of the rows it is given', () => {
    expect(usageCsv([row('2025-01-01', { keyName: '@evil' })]).split('\r\n')[1]).toBe(
      "2025-01-01,platform,team_1,'@evil,key_1,search,1,0.1,,",
    );
  });
});

describe('console "Copy as" snippets', () => {
  const hostile = `it's "quoted" $HOME \`id\` \\ done`;

  it('quotes for the shell so that the shell gives back the very text', () => {
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(hostile)}`]).toString()).toBe(hostile);
  });

  it('builds a curl line whose body is the request, with the key as $TRAWL_API_KEY', () => {
    const body = { query: hostile, numResults: 3 };
    const { curl } = snippetsFor('search', body, 'http://127.0.0.1:8787');
    expect(curl).toContain('Authorization: Bearer $TRAWL_API_KEY');
    // the shell reads the -d argument back as the JSON body
    const data = curl.slice(curl.indexOf(' -d ') + 4);
    expect(JSON.parse(execFileSync('sh', ['-c', `printf %s ${data}`]).toString())).toEqual(body);
  });

  it('builds exa-js code that parses, and an MCP tools/call with the tool of each operation', () => {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...a: string[]) => unknown;
    for (const [kind, body, tool] of [
      ['search', { query: hostile, type: 'fast' }, 'search'],
      ['contents', { urls: ['https://example.com'], text: true }, 'get_contents'],
      ['context', { query: 'react hooks', tokensNum: 'dynamic' }, 'get_code_context'],
      ['answer', { query: hostile, stream: true }, null],
    ] as const) {
      const s = snippetsFor(kind, body, 'http://127.0.0.1:8787');
      if (s.exaJs) {
        expect(s.exaJs).toContain('process.env.TRAWL_API_KEY');
        expect(() => new AsyncFunction('Exa', 'process', s.exaJs!.replace(/^import .*$/m, ''))).not.toThrow();
      }
      if (tool) {
        expect(JSON.parse(s.mcp!)).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: body } }); // prettier-ignore
      } else {
        expect(s.mcp).toBeNull();
      }
    }
    expect(snippetsFor('context', { query: 'x' }, 'http://h').exaJs).toBeNull();
  });
});
