import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNonHtml } from '../../../src/core/contents/formats/index.js';
import {
  DYNAMIC_HIGHLIGHT_CHARACTERS,
  highlightBudget,
  leadWeights,
  pagePassages,
  selectHighlights,
  type Highlights,
} from '../../../src/core/contents/highlights.js';
import type { Page } from '../../../src/core/contents/page.js';
import { createApiClient, type ApiClient } from '../../../src/fetch/api-client.js';
import { createOpenAiEmbedder } from '../../../src/providers/embeddings.js';

const DOCS = `# Proxy guide

Trawl fetches pages through an HTTP client. It follows redirects and keeps connections alive between requests.

## Timeouts

To configure the proxy timeout, set TRAWL_PROXY_TIMEOUT to a number of milliseconds. The timeout bounds the whole request, including redirects. A request that exceeds the timeout fails with CRAWL_TIMEOUT.

## Caching

Pages are cached in SQLite under a normalised URL. The cache keeps the raw response so that rendering options apply to cached pages. Old entries expire after thirty days.

## Installing

\`\`\`bash
npm install trawl
\`\`\`

## Logging

Logs are written to stderr as JSON lines. Secrets such as API keys are redacted before they are written.
`;

const CATS = `# Cats

Cats are small domestic animals. Cats sleep for most of the day and hunt at dusk.

A cat grooms itself with its rough tongue. Cats purr when they are content.

Kittens learn to hunt by watching older cats. Young cats play with anything that moves.

Income tax returns must be filed by the fifteenth of April each year.
`;

const WIDGETS = Array.from(
  { length: 8 },
  (_, i) => `Widget fact ${i + 1}: every widget ships with a widget manual and a widget warranty card number ${i + 1}.`,
).join('\n\n');

const md = (text: string, url = 'https://docs.test/guide.md') => parseNonHtml('markdown', { url, text });

function expectScored(result: Highlights, budget: number) {
  expect(result.highlights.length).toBeGreaterThan(0);
  expect(result.scores).toHaveLength(result.highlights.length);
  for (const s of result.scores) {
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(1);
    expect(Math.round(s * 10_000) / 10_000).toBe(s);
  }
  expect([...result.scores].sort((a, b) => b - a)).toEqual(result.scores);
  expect(result.highlights.join('').length).toBeLessThanOrEqual(budget);
}

describe('passages', () => {
  it('keeps block boundaries, carries the heading, and makes code a passage', async () => {
    const passages = pagePassages(await md(DOCS));
    expect(passages.find((p) => p.text === 'npm install trawl')).toMatchObject({ heading: 'Installing' });
    expect(passages.find((p) => p.text.includes('TRAWL_PROXY_TIMEOUT'))!.heading).toBe('Timeouts');
    for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(600);
  });

  it('gives the lead more weight, linearly', () => {
    expect(leadWeights(3)).toEqual([2, 1.5, 1]);
    expect(leadWeights(1)).toEqual([2]);
  });
});

describe('selectHighlights (lexical)', () => {
  it('puts the passage that answers the query first, within the default budget', async () => {
    const result = await selectHighlights(await md(DOCS), { query: 'how do I set the proxy timeout?' });
    expectScored(result, 2000);
    expect(result.highlights[0]).toContain('TRAWL_PROXY_TIMEOUT');
    expect(result.scores[0]).toBeGreaterThan(0.3);
  });

  it('honours maxCharacters, cutting the best passage when nothing fits', async () => {
    const page = await md(DOCS);
    expectScored(await selectHighlights(page, { query: 'cache timeout', maxCharacters: 250 }), 250);
    const tiny = await selectHighlights(page, { query: 'proxy timeout', maxCharacters: 40 });
    expect(tiny.highlights).toHaveLength(1);
    expect(tiny.highlights[0]!.length).toBeLessThanOrEqual(40);
    expect(tiny.highlights[0]).toMatch(/…$/);
  });

  it('maps numSentences to 1333 characters each; maxCharacters wins; 2000 by default; 10000 at most', () => {
    expect(highlightBudget({ numSentences: 2 })).toBe(2666);
    expect(highlightBudget({ numSentences: 2, maxCharacters: 500 })).toBe(500);
    expect(highlightBudget({})).toBe(2000);
    expect(highlightBudget({ numSentences: 50 })).toBe(10_000);
  });

  it('finds code blocks', async () => {
    const result = await selectHighlights(await md(DOCS), { query: 'npm install' });
    expect(result.highlights[0]).toBe('npm install trawl');
  });

  it('without a query, returns the passages closest to the page centroid', async () => {
    const result = await selectHighlights(await md(CATS), { maxCharacters: 200 });
    expectScored(result, 200);
    expect(result.highlights[0]).toMatch(/[Cc]ats/);
    expect(result.highlights.join(' ')).not.toContain('Income tax');
  });

  it('never returns nothing for a page with text', async () => {
    const noMatch = await selectHighlights(await md(DOCS), { query: 'zebra quantum' });
    expect(noMatch).toEqual({ highlights: [expect.stringContaining('Trawl fetches pages')], scores: [0] });
    const headingsOnly = await selectHighlights(await md('# Only a title\n\n## And a subtitle'), { query: 'zebra' });
    expect(headingsOnly).toEqual({ highlights: ['Only a title'], scores: [0] });
    expect(await selectHighlights(await md(''), {})).toEqual({ highlights: [], scores: [] });
  });

  it('falls back to body blocks when nothing is marked main', async () => {
    const page = await md(DOCS);
    const unmarked: Page = { ...page, blocks: page.blocks.map((b) => ({ ...b, main: false })) };
    const result = await selectHighlights(unmarked, { query: 'proxy timeout' });
    expect(result.highlights[0]).toContain('TRAWL_PROXY_TIMEOUT');
  });

  it('dynamic: one passage for a focused match, more for a broad one, at most 4000 characters', async () => {
    const focused = await selectHighlights(await md(DOCS), { query: 'proxy timeout', dynamic: true });
    expectScored(focused, DYNAMIC_HIGHLIGHT_CHARACTERS);
    expect(focused.highlights).toHaveLength(1);
    expect(focused.highlights[0]).toContain('TRAWL_PROXY_TIMEOUT');
    const broad = await selectHighlights(await md(WIDGETS), { query: 'widget manual warranty', dynamic: true });
    expectScored(broad, DYNAMIC_HIGHLIGHT_CHARACTERS);
    // Adjacent passages are merged into one highlight.
    expect(broad.highlights[0]!.length).toBeGreaterThan(focused.highlights.join('').length);
    expect(broad.highlights.join(' ')).toContain('Widget fact 8');
  });
});

describe('selectHighlights with an embedder', () => {
  // A loopback OpenAI-compatible embeddings server with deterministic bag-of-words vectors.
  const inputs: string[][] = [];
  let failing = false;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      inputs.push(input);
      if (failing) return void res.writeHead(500).end('{}');
      const embed = (text: string) => {
        const v = new Array<number>(64).fill(0);
        for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
          let h = 0x811c9dc5;
          for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
          v[h % 64]! += 1;
        }
        return v;
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })).reverse() }));
    });
  });
  let client: ApiClient;
  let baseUrl = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    client = createApiClient({ userAgent: 'trawl-test' });
  });

  afterAll(async () => {
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('scores passages by embedding cosine, in one batch with the query first', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'bag', post: client.postJson });
    const page = await md(DOCS);
    inputs.length = 0;
    const result = await selectHighlights(page, { query: 'proxy timeout', embedder });
    expectScored(result, 2000);
    expect(result.highlights[0]).toContain('TRAWL_PROXY_TIMEOUT');
    expect(inputs).toHaveLength(1);
    expect(inputs[0]![0]).toBe('proxy timeout');
    expect(inputs[0]!.length).toBe(pagePassages(page).length + 1);
    const keyPassages = await selectHighlights(page, { embedder, maxCharacters: 300 });
    expectScored(keyPassages, 300);
  });

  it('falls back to lexical scores when the provider fails, and says so', async () => {
    const embedder = createOpenAiEmbedder({ baseUrl, model: 'bag', post: client.postJson });
    failing = true;
    const errors: unknown[] = [];
    try {
      const result = await selectHighlights(await md(DOCS), {
        query: 'proxy timeout',
        embedder,
        onEmbedderError: (e) => errors.push(e),
      });
      expect(result.highlights[0]).toContain('TRAWL_PROXY_TIMEOUT');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ tag: 'UNABLE_TO_GENERATE_RESPONSE' });
    } finally {
      failing = false;
    }
  });
});
