import { parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { readHtmlMetadata } from '../../../src/core/contents/html/metadata.js';

const read = (html: string, url = 'https://news.example.com/world/story') => readHtmlMetadata(parseDocument(html), url);

describe('readHtmlMetadata', () => {
  it('reads Open Graph tags, html lang and the description', () => {
    const meta = read(`<!doctype html><html lang="en-GB"><head>
      <title>Ignored | Example News</title>
      <meta property="og:title" content="Rivers Rise Across the Valley">
      <meta property="og:site_name" content="Example News">
      <meta property="og:image" content="/img/rivers.jpg">
      <meta name="description" content="Heavy rain swelled rivers overnight.">
      <meta property="article:published_time" content="2024-03-05T08:30:00+01:00">
      <meta name="author" content="By Jane Doe">
    </head><body><h1>Something else</h1></body></html>`);
    expect(meta).toEqual({
      title: 'Rivers Rise Across the Valley',
      author: 'Jane Doe',
      publishedDate: '2024-03-05T07:30:00.000Z',
      image: 'https://news.example.com/img/rivers.jpg',
      favicon: 'https://news.example.com/favicon.ico',
      language: 'en-GB',
      description: 'Heavy rain swelled rivers overnight.',
    });
  });

  it('reads JSON-LD inside @graph, resolving the author by @id', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', '@id': 'https://blog.example.org/#site', name: 'Example Blog' },
        {
          '@type': 'Person',
          '@id': 'https://blog.example.org/#/person/1',
          name: 'Ada Lovelace',
          url: 'https://blog.example.org/ada',
        },
        {
          '@type': 'BlogPosting',
          headline: 'Notes on the Analytical Engine',
          datePublished: '2023-11-02',
          author: { '@id': 'https://blog.example.org/#/person/1' },
          image: { '@type': 'ImageObject', url: 'https://cdn.example.org/engine.png' },
        },
      ],
    };
    const meta = read(
      `<html><head><title>Notes | Example Blog</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body></body></html>`,
      'https://blog.example.org/notes',
    );
    expect(meta.title).toBe('Notes on the Analytical Engine');
    expect(meta.author).toBe('Ada Lovelace');
    expect(meta.publishedDate).toBe('2023-11-02T00:00:00.000Z');
    expect(meta.image).toBe('https://cdn.example.org/engine.png');
  });

  it('takes names from JSON-LD author arrays and strings, never URLs', () => {
    const ld = {
      '@type': 'NewsArticle',
      author: [
        { '@type': 'Person', name: 'Grace Hopper' },
        'Alan Turing',
        { '@type': 'Person', url: 'https://x.org/p' },
      ],
    };
    const meta = read(
      `<script type="application/ld+json">${JSON.stringify(ld)}</script><meta property="article:author" content="https://facebook.com/someone">`,
    );
    expect(meta.author).toBe('Grace Hopper, Alan Turing');
  });

  it('trims the site name from <title> when it matches og:site_name or the domain', () => {
    expect(
      read('<title>How Tides Work | Ocean Facts</title><meta property="og:site_name" content="Ocean Facts">').title,
    ).toBe('How Tides Work');
    expect(
      read('<title>Ocean Facts - How Tides Work</title><meta property="og:site_name" content="Ocean Facts">').title,
    ).toBe('How Tides Work');
    expect(read('<title>Rust Guide – Example</title>', 'https://www.example.com/rust').title).toBe('Rust Guide');
    expect(read('<title>Tom - Jerry</title>', 'https://cartoons.test/').title).toBe('Tom - Jerry');
    expect(
      read('<title>Getting Started | Docs | Acme</title><h1>Getting Started</h1>', 'https://acme.dev/').title,
    ).toBe('Getting Started');
  });

  it('falls back to the first h1, then the URL', () => {
    expect(read('<body><h1> The  Heading </h1></body>').title).toBe('The Heading');
    expect(read('<body><p>no title</p></body>', 'https://x.test/docs/getting-started.html').title).toBe(
      'getting started',
    );
  });

  it('reads a <time datetime> in the article, ignoring times elsewhere', () => {
    const html = `<body><aside><time datetime="2020-01-01">old</time></aside>
      <article><header><h1>Post</h1><time datetime="2022-07-14T12:00:00Z">July 14</time></header><p>Body</p></article></body>`;
    expect(read(html).publishedDate).toBe('2022-07-14T12:00:00.000Z');
  });

  it('reads microdata, meta date names, shown dates and then the URL', () => {
    expect(read('<span itemprop="datePublished" content="2021-02-03">Feb 3</span>').publishedDate).toBe(
      '2021-02-03T00:00:00.000Z',
    );
    expect(read('<meta name="parsely-pub-date" content="2019-09-09T09:09:09Z">').publishedDate).toBe(
      '2019-09-09T09:09:09.000Z',
    );
    expect(read('<h1>Post</h1><div class="post-meta">Published March 4, 2018</div>').publishedDate).toBe(
      '2018-03-04T00:00:00.000Z',
    );
    expect(read('<p>nothing</p>', 'https://x.test/blog/2017/08/21/eclipse').publishedDate).toBe(
      '2017-08-21T00:00:00.000Z',
    );
    expect(read('<meta name="date" content="2999-01-01">').publishedDate).toBeNull();
    expect(read('<p>nothing</p>').publishedDate).toBeNull();
  });

  it('finds bylines: rel=author, byline classes and "By Name" text', () => {
    expect(read('<a rel="author" href="/u/1">Linus Pauling</a>').author).toBe('Linus Pauling');
    expect(read('<div class="article-byline">By Rosalind Franklin | Updated May 2, 2020</div>').author).toBe(
      'Rosalind Franklin',
    );
    expect(read('<h1>T</h1><p><span>By</span> <span>Marie Curie</span></p>').author).toBe('Marie Curie');
    expect(read('<div itemprop="author" itemscope><span itemprop="name">Niels Bohr</span></div>').author).toBe(
      'Niels Bohr',
    );
    expect(read('<div class="author">Get in touch</div>').author).toBeNull();
    expect(read('<meta name="author" content="admin">').author).toBeNull();
  });

  it('picks the largest favicon, absolute, honouring <base>', () => {
    const meta = read(
      `<head><base href="https://static.example.com/assets/">
        <link rel="icon" href="favicon-16.png" sizes="16x16">
        <link rel="apple-touch-icon" href="touch.png">
        <link rel="icon" href="favicon-32.png" sizes="32x32">
        <link rel="mask-icon" href="mask.svg"></head>`,
    );
    expect(meta.favicon).toBe('https://static.example.com/assets/touch.png');
    expect(read('<link rel="shortcut icon" href="/fav.ico">').favicon).toBe('https://news.example.com/fav.ico');
    expect(
      read('<link rel="icon" href="/a.png" sizes="64x64"><link rel="icon" type="image/svg+xml" href="/a.svg">').favicon,
    ).toBe('https://news.example.com/a.svg');
  });

  it('survives broken JSON-LD and odd input', () => {
    const meta = read('<script type="application/ld+json">{ not json</script><title>Fine</title>');
    expect(meta.title).toBe('Fine');
    expect(read('', 'https://x.test/').title).toBe('x.test');
    expect(read('<html lang="not a tag!"><title>T</title></html>').language).toBeUndefined();
    expect(read('<meta property="og:locale" content="fr_FR">').language).toBe('fr-FR');
  });
});
