/** What the web-search providers share: hit normalisation, dates, site: operators, errors. */
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../src/errors.js';
import { htmlToText, providerError, siteOperators, toHits, toIsoDate } from '../../../src/providers/search/hits.js';

describe('toHits', () => {
  it('keeps absolute http(s) URLs, first of duplicates, at most the limit, ranked from 1', () => {
    const hits = toHits(
      'p',
      [
        { url: ' https://Example.com/a/ ', title: ' A\n\ttitle ' },
        { url: 'http://www.example.com/a#top', title: 'same page' },
        { url: 'javascript:alert(1)', title: 'x' },
        { url: 'mailto:a@b.c', title: 'x' },
        { url: 42, title: 'x' },
        { url: 'https://example.com/a?page=2', title: '', score: Number.NaN, author: '' },
        { url: 'https://example.com/b', title: 'B', score: 3 },
      ],
      2,
    );
    expect(hits).toEqual([
      { url: 'https://example.com/a/', title: 'A title', publishedDate: null, provider: 'p', rank: 1 },
      { url: 'https://example.com/a?page=2', title: 'https://example.com/a?page=2', publishedDate: null, author: null, provider: 'p', rank: 2 }, // prettier-ignore
    ]);
  });
});

describe('toIsoDate', () => {
  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:20:30', '2024-05-01T10:20:30.000Z'],
    ['2024-05-01 10:20', '2024-05-01T10:20:00.000Z'],
    ['2024-05-01T10:20:30+02:00', '2024-05-01T08:20:30.000Z'],
    ['May 1, 2024', '2024-05-01T00:00:00.000Z'],
    ['3 days ago', null],
    ['Version 2', null],
    ['', null],
    [null, null],
    [1714521600, null],
  ])('%j → %j', (input, expected) => {
    expect(toIsoDate(input)).toBe(expected);
  });
});

describe('siteOperators', () => {
  it('ORs a few include domains, negates a few exclusions, and pushes down none of a long list', () => {
    expect(siteOperators(['*.python.org'])).toBe('site:python.org');
    expect(siteOperators(['a.dev', 'http://b.dev/docs/'], ['c.dev'])).toBe(
      '(site:a.dev OR site:b.dev/docs) -site:c.dev',
    );
    expect(siteOperators(['1', '2', '3'], ['4', '5', '6'], 2)).toBe('');
    expect(siteOperators([], [])).toBe('');
  });
});

describe('htmlToText', () => {
  it('drops tags and decodes entities', () => {
    expect(htmlToText('<strong>Rust</strong> &amp; &lt;Tokio&gt; &#8212; &#x27;x&#x27; &bogus;')).toBe(
      "Rust & <Tokio> — 'x' &bogus;",
    );
    expect(htmlToText(undefined)).toBe('');
  });
});

describe('providerError', () => {
  it('names the provider, scrubs secrets and drops a cause that held one', () => {
    const plain = providerError('brave', new Error('boom'), { secrets: ['k3y'] }) as ServiceError;
    expect(plain).toBeInstanceOf(ServiceError);
    expect(plain).toMatchObject({ tag: 'SERVICE_UNAVAILABLE', message: 'web search provider brave failed: boom' });
    expect(plain.cause).toBeInstanceOf(Error);
    const leaky = providerError('brave', new Error('bad key k3y'), { secrets: [undefined, 'k3y'], hint: ' (hint)' });
    expect(leaky).toMatchObject({ message: 'web search provider brave failed: bad key [redacted] (hint)' });
    expect((leaky as Error).cause).toBeUndefined();
  });

  it('passes a cancellation through', () => {
    const controller = new AbortController();
    controller.abort();
    const err = new Error('cancelled');
    expect(providerError('p', err, { signal: controller.signal })).toBe(err);
  });
});
