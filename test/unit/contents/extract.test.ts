// Main-content extraction on small hand-written pages: an article with page chrome around it, a docs
// page with code and a table, a forum thread, a product page and a JavaScript shell.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import type { Block, Page } from '../../../src/core/contents/page.js';
import { mainText, renderText } from '../../../src/core/contents/render.js';

const para = (topic: string) =>
  `${topic} is explained here in enough detail to read like running text, with commas, clauses and a full stop. ` +
  `Readers who skim it still learn why ${topic.toLowerCase()} matters, how it behaves, and what to watch for.`;

const ARTICLE = `<!doctype html><html lang="en"><head><title>How tides work | Ocean Blog</title>
<meta property="og:type" content="article"><style>.x{color:red}</style><script>window.a = 1;</script></head>
<body>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. <a href="/privacy">Privacy</a></div>
<header class="site-header"><a class="logo" href="/">Ocean Blog</a>
  <nav><ul><li><a href="/">Home</a></li><li><a href="/topics">Topics</a></li><li><a href="/about">About us</a></li></ul></nav>
</header>
<main>
  <article>
    <h1>How tides work</h1>
    <div class="byline">By Jane Doe, <time datetime="2024-03-01">March 1, 2024</time></div>
    <p>${para('The tide')} The <a href="https://example.org/moon" onclick="track()">pull of the moon</a> drives it.</p>
    <p>${para('Tidal range')}</p>
    <h2>Spring and neap tides</h2>
    <p>${para('A spring tide')}</p>
    <figure><img src="data:image/gif;base64,R0lGOD" data-src="/img/tide.jpg" alt="High tide at the harbour">
      <figcaption>High tide at the harbour.</figcaption></figure>
    <ul><li>Spring tides come at new and full moon.</li><li>Neap tides come at the quarter moons.</li></ul>
    <p>${para('A neap tide')}</p>
    <!-- a comment that must not survive -->
    <div class="comments-area"><h3>2 comments</h3><ol class="comment-list">
      <li class="comment"><p>${para('My own harbour')}</p></li></ol></div>
  </article>
  <aside class="sidebar"><h3>Popular posts</h3><ul><li><a href="/p/salt">Why the sea is salty</a></li>
    <li><a href="/p/waves">Where waves come from</a></li></ul></aside>
</main>
<footer><p>© 2024 Ocean Blog. All rights reserved.</p><a href="/contact">Contact</a></footer>
<script>track();</script>
</body></html>`;

const find = (page: Page, needle: string): Block => {
  const block = page.blocks.find((b) => b.text.includes(needle));
  if (!block) throw new Error(`no block contains ${needle}`);
  return block;
};

describe('extractHtml: an article among page chrome', () => {
  const page = extractHtml(ARTICLE, 'https://blog.example.com/tides');

  it('keeps the article text as main content and nothing of the chrome', () => {
    const text = mainText(page);
    expect(text).toContain('The tide is explained here');
    expect(text).toContain('A neap tide is explained here');
    expect(text).toContain('Spring tides come at new and full moon.');
    for (const chrome of ['We use cookies', 'About us', 'Popular posts', 'All rights reserved', 'By Jane Doe']) {
      expect(text).not.toContain(chrome);
    }
  });

  it('leaves the comments and the caption out of the main content', () => {
    expect(find(page, 'My own harbour').main).toBe(false);
    expect(find(page, 'High tide at the harbour.').main).toBe(false);
    expect(find(page, 'Spring and neap tides')).toMatchObject({ main: true, kind: 'heading', level: 2 });
  });

  it('keeps the title heading in the main content, and out of mainText (the title field has it)', () => {
    expect(find(page, 'How tides work')).toMatchObject({ main: true, kind: 'heading', level: 1 });
    expect(renderText(page).startsWith('# How tides work\n\nThe tide is explained')).toBe(true);
    expect(mainText(page).startsWith('The tide is explained')).toBe(true);
  });

  it('classifies every block into the spec sections', () => {
    expect(find(page, 'We use cookies').section).toBe('banner');
    expect(find(page, 'Home').section).toBe('navigation');
    expect(find(page, 'Ocean Blog').section).toBe('header');
    expect(find(page, 'Popular posts').section).toBe('sidebar');
    expect(find(page, 'All rights reserved').section).toBe('footer');
    expect(find(page, 'By Jane Doe').section).toBe('metadata');
    expect(find(page, 'The tide is explained').section).toBe('body');
  });

  it('renders links as Markdown with absolute URLs and cleans the HTML', () => {
    const block = find(page, 'pull of the moon');
    expect(block.markdown).toContain('[pull of the moon](https://example.org/moon)');
    expect(block.text).toContain('The pull of the moon drives it.');
    expect(block.html).toContain('<a href="https://example.org/moon">');
    const html = page.blocks.map((b) => b.html).join('');
    expect(html).not.toMatch(/<script|<style|onclick|<!--/);
  });

  it('lists links and images with the main content first, deduplicated and absolute', () => {
    expect(page.links[0]).toEqual({ url: 'https://example.org/moon', text: 'pull of the moon' });
    const urls = page.links.map((l) => l.url);
    expect(urls).toContain('https://blog.example.com/p/salt');
    expect(urls).toContain('https://blog.example.com/privacy');
    expect(new Set(urls).size).toBe(urls.length);
    expect(page.images).toEqual([{ url: 'https://blog.example.com/img/tide.jpg', alt: 'High tide at the harbour' }]);
  });

  it('carries the page metadata and is not a JavaScript shell', () => {
    expect(page.kind).toBe('html');
    expect(page.url).toBe('https://blog.example.com/tides');
    expect(page.title).toContain('How tides work');
    expect(page.needsBrowser).toBe(false);
  });
});

const DOCS = `<html><head><title>Install the CLI - Tool docs</title></head><body>
<nav class="docs-sidebar"><ul><li><a href="/docs/install">Install</a></li><li><a href="/docs/config">Configure</a></li></ul></nav>
<main><h1>Install the CLI</h1>
<p>${para('Installing the command-line tool')}</p>
<pre><code class="language-bash">npm install -g tool
tool --version</code></pre>
<p>Call it from Python with the <code>tool</code> module:</p>
<div class="highlight-python notranslate"><div class="highlight"><pre>import tool

tool.run(port=8080)</pre></div></div>
<p>${para('The typed client')}</p>
<pre data-lang="ts"><code>const port: number = 8080;</code></pre>
<h2>Options</h2>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead>
<tbody><tr><td><code>--port</code></td><td>8080</td></tr><tr><td><code>--host</code></td><td>127.0.0.1</td></tr></tbody></table>
<p>${para('Each option')}</p>
</main></body></html>`;

describe('extractHtml: a documentation page', () => {
  const page = extractHtml(DOCS, 'https://docs.example.com/install');

  it('keeps every code block with its language, in order', () => {
    expect(page.codeBlocks).toEqual([
      { language: 'bash', code: 'npm install -g tool\ntool --version' },
      { language: 'python', code: 'import tool\n\ntool.run(port=8080)' },
      { language: 'typescript', code: 'const port: number = 8080;' },
    ]);
    const bash = find(page, 'npm install');
    expect(bash).toMatchObject({ kind: 'code', language: 'bash', main: true });
    expect(bash.markdown).toBe('```bash\nnpm install -g tool\ntool --version\n```');
  });

  it('renders the options table as a pipe table with inline code', () => {
    const table = find(page, '--port');
    expect(table.kind).toBe('table');
    expect(table.main).toBe(true);
    expect(table.markdown).toBe(
      ['| Option | Default |', '| --- | --- |', '| `--port` | 8080 |', '| `--host` | 127.0.0.1 |'].join('\n'),
    );
    expect(table.text).toBe('Option | Default\n--port | 8080\n--host | 127.0.0.1');
  });

  it('keeps inline code in backticks and the docs navigation out of the main content', () => {
    expect(find(page, 'Call it from Python').markdown).toBe('Call it from Python with the `tool` module:');
    expect(find(page, 'Configure').section).toBe('navigation');
    expect(find(page, 'Configure').main).toBe(false);
  });
});

const post = (id: number, user: string, body: string) =>
  `<div class="post" id="post-${id}"><div class="post-author"><a href="/u/${user}">${user}</a></div>
   <div class="post-body">${body}</div></div>`;

const FORUM = `<html><head><title>How do I reverse a list? - Python forum</title></head><body>
<header class="site-header"><a href="/">Python forum</a><a href="/login">Log in</a></header>
<div class="thread"><h1>How do I reverse a list?</h1>
${post(1, 'alice', `<p>${para('Reversing a list in place')}</p><pre><code class="lang-python">xs = [1, 2, 3]</code></pre>`)}
${post(2, 'bob', `<p>${para('Slicing with a negative step')}</p>`)}
${post(3, 'carol', `<p>${para('The reversed built-in')}</p>`)}
</div>
<footer><p>Forum rules and privacy.</p></footer></body></html>`;

describe('extractHtml: a forum thread', () => {
  const page = extractHtml(FORUM, 'https://forum.example.com/t/reverse-a-list/42');

  it('keeps the question and every answer', () => {
    const text = mainText(page);
    expect(text).toContain('Reversing a list in place is explained');
    expect(text).toContain('Slicing with a negative step is explained');
    expect(text).toContain('The reversed built-in is explained');
    expect(page.codeBlocks).toEqual([{ language: 'python', code: 'xs = [1, 2, 3]' }]);
  });

  it('leaves the posters and the site chrome out', () => {
    expect(find(page, 'alice').section).toBe('metadata');
    expect(find(page, 'alice').main).toBe(false);
    expect(mainText(page)).not.toContain('Log in');
    expect(mainText(page)).not.toContain('Forum rules');
  });
});

const PRODUCT = `<html><head><title>Trail Pack 25 | Outdoor Shop</title></head><body>
<nav class="main-nav"><a href="/packs">Packs</a><a href="/tents">Tents</a></nav>
<main><div class="product">
  <h1>Trail Pack 25</h1><div class="price">$99.95</div><p>In stock</p><div>Add to cart</div>
  <div class="description"><p>${para('This light daypack')}</p><p>${para('The ripstop shell')}</p></div>
  <h2>Specifications</h2>
  <table class="specs"><tr><th>Capacity</th><td>25 L</td></tr><tr><th>Weight</th><td>850 g</td></tr>
    <tr><th>Material</th><td>Ripstop nylon</td></tr></table>
  <div class="reviews"><h2>Reviews</h2><div class="review"><p>${para('My pack after a year')}</p></div></div>
  <div class="related-products"><h2>You may also like</h2><ul><li><a href="/p/city-18">City Pack 18</a></li>
    <li><a href="/p/summit-40">Summit Pack 40</a></li></ul></div>
</div></main><footer>Free returns within 30 days.</footer></body></html>`;

describe('extractHtml: a product page', () => {
  const page = extractHtml(PRODUCT, 'https://shop.example.com/p/trail-25');

  it('keeps the description and the specifications table', () => {
    const text = mainText(page);
    expect(text).toContain('This light daypack is explained');
    expect(text).toContain('The ripstop shell is explained');
    expect(find(page, 'Capacity')).toMatchObject({ kind: 'table', main: true });
    expect(find(page, 'Capacity').markdown).toContain('| Weight | 850 g |');
  });

  it('leaves reviews, recommendations and navigation out', () => {
    const text = mainText(page);
    expect(text).not.toContain('My pack after a year');
    expect(text).not.toContain('City Pack 18');
    expect(text).not.toContain('Tents');
    expect(find(page, 'City Pack 18').section).toBe('sidebar');
  });

  it('leaves the buying controls out, even on a page with no dominant text', () => {
    expect(mainText(page)).not.toContain('Add to cart');
    const grid = extractHtml(
      '<html><body><h1>Blue mug</h1><div>Holds 350 ml.</div><div>In stock</div><div>Add to cart</div><div>Buy now</div></body></html>',
      'https://shop.example.com/p/mug',
    );
    expect(mainText(grid)).toContain('Holds 350 ml.');
    expect(mainText(grid)).not.toContain('Add to cart');
    expect(mainText(grid)).not.toContain('In stock');
    expect(mainText(grid)).not.toContain('Buy now');
  });
});

describe('extractHtml: a short page', () => {
  it('keeps two short paragraphs as the main content rather than nothing', () => {
    const html = `<html><head><title>Release notes</title></head><body><nav><a href="/">Home</a></nav>
      <main><article><h1>Release notes</h1><p>Second edition: configuration files now live next to the project.</p>
      <p>Older notes moved to the archive.</p></article></main><footer>© Example</footer></body></html>`;
    const page = extractHtml(html, 'https://example.com/notes');
    expect(mainText(page)).toBe(
      'Second edition: configuration files now live next to the project.\n\nOlder notes moved to the archive.',
    );
    expect(renderText(page)).toContain('# Release notes');
  });
});

describe('extractHtml: JavaScript shells', () => {
  it('flags an empty mount point with scripts as needing a browser', () => {
    const shell = `<html><head><title>App</title><script src="/vendor.js"></script></head><body>
      <div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>
      <script src="/main.js"></script></body></html>`;
    const page = extractHtml(shell, 'https://app.example.com/');
    expect(page.needsBrowser).toBe(true);
    expect(mainText(page)).toBe('');
  });

  it('keeps a no-JS crawler view that lives in <noscript> (Discourse)', () => {
    const crawler = `<html><body><div id="app">Loading</div><noscript><div id="main-outlet">
      <h1>Best first telescope?</h1><div class="post"><p>${para('A small refractor')}</p></div>
      <div class="post"><p>${para('A tabletop Dobsonian')}</p></div></div></noscript>
      <script src="/app.js"></script><script src="/vendor.js"></script><script src="/x.js"></script></body></html>`;
    const page = extractHtml(crawler, 'https://forum.example.com/t/telescope/1');
    expect(page.needsBrowser).toBe(false);
    expect(mainText(page)).toContain('A tabletop Dobsonian is explained');
  });
});
