import { describe, expect, it } from 'vitest';
import { createDeduplicator, type SeenResult } from '../../../src/core/monitors/dedup.js';

// A ~150-word news story, as a wire service publishes it.
const STORY = `Node.js 22 has entered long-term support, the project's release team announced on Tuesday, which means
the line will receive security patches and critical bug fixes until April 2027. The release brings require() of
synchronous ES modules behind a flag, a stable watch mode, and a built-in WebSocket client that no longer needs
an experimental switch. Maintainers said the V8 upgrade to version 12.4 improves startup time for large
applications by up to fifteen percent in their benchmarks. Companies running Node.js 18 in production are
encouraged to plan their migration soon, because that line reaches end of life next spring. The release team
also thanked the volunteers who triaged more than two thousand issues during the current cycle and reminded
package authors to test their modules against the new version before upgrading their continuous integration
images. Download links and the full changelog are available on the official website.`;

// The same story syndicated elsewhere: one sentence rewritten by the second outlet's editor.
const STORY_EDITED = STORY.replace(
  'Maintainers said the V8 upgrade to version 12.4 improves startup time for large\napplications by up to fifteen percent in their benchmarks.',
  'According to the maintainers, moving to V8 12.4 makes big applications start noticeably faster.',
);

// The same story behind another outlet's header.
const STORY_WITH_HEADER = `Tech Briefing Weekly. Sign up for our newsletter to get the top developer stories delivered every morning.
Reporting by our partners at the Open Source Wire. ${STORY}`;

// A different article on the same topic: shares names and vocabulary, not sentences.
const GUIDE = `Upgrading a service to Node.js 22 took our team one afternoon, and most of that time went into the test
suite rather than the application code. We started by bumping the version in our Dockerfile and in the engines
field of package.json, then ran the full integration suite against a staging database. Two dependencies failed:
an old native addon that had not been rebuilt for the new ABI, and a logging library that relied on a removed
internal stream property. Both had newer releases that fixed the problem. The built-in test runner also let us
drop a development dependency entirely. We measured cold start time before and after the upgrade and saw a small
improvement, nothing dramatic. If your project still runs on Node.js 18, start with the deprecation warnings in
your logs: they list almost everything that will break. Pin the new version in continuous integration first, then
roll it out to production one service at a time.`;

function result(url: string, title: string | null, text?: string): SeenResult {
  return { url, title, text: text ?? null };
}

describe('createDeduplicator: same page', () => {
  it('treats tracking parameters, fragments and a trailing slash as the same page', () => {
    const dedup = createDeduplicator([result('https://blog.example.com/posts/node-22-lts', 'Node 22 LTS')]);
    expect(
      dedup.check(result('https://blog.example.com/posts/node-22-lts/?utm_source=rss&utm_medium=feed', 'x')),
    ).toEqual({
      kind: 'url',
      of: 'https://blog.example.com/posts/node-22-lts',
    });
    expect(dedup.check(result('https://blog.example.com/posts/node-22-lts?fbclid=abc#comments', 'y'))?.kind).toBe(
      'url',
    );
    // A meaningful query parameter is another page.
    expect(dedup.check(result('https://blog.example.com/posts/node-22-lts?page=2', null))).toBeUndefined();
  });

  it('treats http and https, www. and a trailing /index.html as the same page', () => {
    const dedup = createDeduplicator([result('https://www.example.org/news/', null)]);
    expect(dedup.check(result('http://example.org/news/index.html', null))).toEqual({
      kind: 'url',
      of: 'https://www.example.org/news/',
    });
    expect(dedup.check(result('HTTP://EXAMPLE.ORG:80/news', null))?.kind).toBe('url');
    expect(dedup.check(result('https://example.org/News', null))).toBeUndefined();
  });
});

describe('createDeduplicator: titles', () => {
  it('matches the same title under different site suffixes', () => {
    const dedup = createDeduplicator([
      result(
        'https://www.theregister.example/2024/10/30/node_22_lts/',
        'Node.js 22 enters long-term support | The Register',
      ),
    ]);
    expect(
      dedup.check(result('https://news.example.net/a/81723', 'Node.js 22 Enters Long-Term Support - Hacker Digest')),
    ).toEqual({
      kind: 'title',
      of: 'https://www.theregister.example/2024/10/30/node_22_lts/',
    });
    expect(dedup.check(result('https://devweekly.example/node-22', 'Node.js 22 enters long-term support'))?.kind).toBe(
      'title',
    );
  });

  it('strips a section and a site name', () => {
    const dedup = createDeduplicator([result('https://a.example/1', 'Node.js 22 enters long-term support')]);
    expect(
      dedup.check(result('https://b.example/2', 'Node.js 22 enters long-term support | Software | The Register'))?.kind,
    ).toBe('title');
  });

  it('matches a title that differs by one word in enough words', () => {
    const dedup = createDeduplicator([result('https://a.example/1', 'Node.js 22 enters long-term support')]);
    expect(dedup.check(result('https://b.example/2', 'Node.js 22 enters long-term support today'))?.kind).toBe('title');
  });

  it('keeps a headline tail after a dash that is not a site name', () => {
    const dedup = createDeduplicator([result('https://a.example/1', 'Node.js 22 enters LTS - what it means for you')]);
    expect(
      dedup.check(result('https://b.example/2', 'Node.js 22 enters LTS - migration takes an afternoon')),
    ).toBeUndefined();
  });

  it('never lets short titles collide', () => {
    const dedup = createDeduplicator([
      result('https://a.example/', 'Home'),
      result('https://a.example/missing', 'Page not found'),
      result('https://a.example/about', 'About us | Example Corp'),
    ]);
    expect(dedup.check(result('https://b.example/', 'Home'))).toBeUndefined();
    expect(dedup.check(result('https://b.example/gone', 'Page Not Found'))).toBeUndefined();
    expect(dedup.check(result('https://b.example/about', 'About Us - Other Corp'))).toBeUndefined();
  });

  it('ignores a title that is only the URL', () => {
    const dedup = createDeduplicator([
      result('https://a.example/docs/getting-started/install', 'https://a.example/docs/getting-started/install'),
    ]);
    expect(
      dedup.check(
        result('https://a.example/docs/getting-started/configure', 'https://a.example/docs/getting-started/configure'),
      ),
    ).toBeUndefined();
  });

  it('lets different texts overrule a recurring title', () => {
    const dedup = createDeduplicator([
      result('https://markets.example/2024-10-29', 'Daily market update: stocks, bonds and oil', STORY),
    ]);
    expect(
      dedup.check(result('https://markets.example/2024-10-30', 'Daily market update: stocks, bonds and oil', GUIDE)),
    ).toBeUndefined();
    // Without a text to compare, the title decides.
    expect(
      dedup.check(result('https://mirror.example/2024-10-30', 'Daily market update: stocks, bonds and oil'))?.kind,
    ).toBe('title');
  });
});

describe('createDeduplicator: texts', () => {
  it('finds a syndicated story with one sentence rewritten under another headline', () => {
    const dedup = createDeduplicator([
      result('https://wire.example/tech/node-22-lts', 'Node.js 22 enters long-term support', STORY),
    ]);
    expect(
      dedup.check(
        result(
          'https://paper.example/business/2024/node',
          'JavaScript runtime gets three years of patches',
          STORY_EDITED,
        ),
      ),
    ).toEqual({
      kind: 'text',
      of: 'https://wire.example/tech/node-22-lts',
    });
  });

  it('finds a syndicated story behind a different header', () => {
    const dedup = createDeduplicator([result('https://wire.example/tech/node-22-lts', null, STORY)]);
    expect(
      dedup.check(result('https://briefing.example/issue/412', 'Tech Briefing Weekly #412', STORY_WITH_HEADER))?.kind,
    ).toBe('text');
  });

  it('keeps two articles on the same topic with a shared title prefix apart', () => {
    const dedup = createDeduplicator([
      result(
        'https://wire.example/tech/node-22-lts',
        'Node.js 22 enters long-term support: what changes for npm users',
        STORY,
      ),
    ]);
    expect(
      dedup.check(
        result(
          'https://eng.example/blog/upgrade',
          'Node.js 22 enters long-term support: our upgrade in one afternoon',
          GUIDE,
        ),
      ),
    ).toBeUndefined();
  });

  // Past 256 shingles the texts are compared by their sketches rather than in full.
  it('compares long texts by their sketches', () => {
    const long = `${STORY}\n\n${GUIDE}`;
    const dedup = createDeduplicator([result('https://wire.example/long', null, long)]);
    expect(dedup.check(result('https://paper.example/long', null, STORY_EDITED.concat('\n\n', GUIDE)))?.kind).toBe(
      'text',
    );
    // Sharing half its text (the guide, twice) is not enough.
    expect(
      dedup.check(result('https://paper.example/other', null, `${GUIDE}\n\n${GUIDE.toUpperCase()}`)),
    ).toBeUndefined();
  });

  it('compares the summary, else the highlights, when there is no text', () => {
    const summary = STORY.split('. ').slice(0, 3).join('. ');
    const dedup = createDeduplicator([{ url: 'https://wire.example/1', summary }]);
    expect(dedup.check({ url: 'https://paper.example/2', highlights: summary.split('. ') })?.kind).toBe('text');
  });

  it('does not compare texts that are too short', () => {
    const dedup = createDeduplicator([result('https://a.example/1', null, 'Read more about our pricing plans.')]);
    expect(dedup.check(result('https://b.example/2', null, 'Read more about our pricing plans.'))).toBeUndefined();
  });

  it('honours a stricter text similarity', () => {
    const dedup = createDeduplicator([result('https://wire.example/1', null, STORY)], { textSimilarity: 0.95 });
    expect(dedup.check(result('https://paper.example/2', null, STORY_EDITED))).toBeUndefined();
  });
});

describe('createDeduplicator: within a run', () => {
  it('flags the second occurrence and remembers where it was seen', () => {
    const dedup = createDeduplicator([]);
    const first = result('https://wire.example/tech/node-22-lts', 'Node.js 22 enters long-term support', STORY);
    expect(dedup.check(first)).toBeUndefined();
    expect(dedup.check(result('https://paper.example/node', 'Runtime news', STORY_EDITED))).toEqual({
      kind: 'text',
      of: first.url,
    });
    expect(dedup.check(first)).toEqual({ kind: 'url', of: first.url });
    // The copy's own address now points at the original too.
    expect(dedup.check(result('https://paper.example/node/?utm_campaign=x', null))).toEqual({
      kind: 'url',
      of: first.url,
    });
    expect(
      dedup.check(result('https://eng.example/blog/upgrade', 'Our Node.js 22 upgrade in one afternoon', GUIDE)),
    ).toBeUndefined();
  });

  it('handles results with no title and no text', () => {
    const dedup = createDeduplicator([{ url: 'https://a.example/1' }, { url: 'not a url' }]);
    expect(
      dedup.check({ url: 'https://a.example/2', title: null, text: null, highlights: null, summary: null }),
    ).toBeUndefined();
    expect(dedup.check({ url: 'https://a.example/2', highlights: [] })?.kind).toBe('url');
    expect(dedup.check({ url: 'not a url' })).toEqual({ kind: 'url', of: 'not a url' });
  });
});

describe('createDeduplicator: many results', () => {
  it('checks 100 varied results against 500 earlier ones, finding no false duplicate', () => {
    let seed = 42;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const vocabulary = STORY.concat(' ', GUIDE)
      .split(/\W+/)
      .filter((w) => w.length > 3);
    const article = (): string =>
      Array.from({ length: 160 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    const title = (): string =>
      Array.from({ length: 8 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    const previous = Array.from({ length: 500 }, (_, i) => result(`https://old.example/${i}`, title(), article()));
    const current = Array.from({ length: 100 }, (_, i) => result(`https://new.example/${i}`, title(), article()));
    // how fast: bench/test-timings.mjs
    const dedup = createDeduplicator(previous);
    const duplicates = current.filter((r) => dedup.check(r) !== undefined);
    expect(duplicates).toEqual([]);
  });
});
