// How the extractor renders each kind of block: lists (nested, numbered), tables (data and layout),
// code languages, quotes, figures, rules, line breaks, and the cleaned HTML kept for each block.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import type { Block } from '../../../src/core/contents/page.js';

const blocksOf = (body: string): Block[] =>
  extractHtml(`<html><head><title>t</title></head><body>${body}</body></html>`, 'https://example.com/a/b').blocks;

const only = (body: string): Block => {
  const blocks = blocksOf(body);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
};

describe('block rendering', () => {
  it('renders nested and numbered lists', () => {
    const list = only('<ul><li>One<ul><li>One, first part</li></ul></li><li>Two</li></ul>');
    expect(list.kind).toBe('list');
    expect(list.markdown).toBe('- One\n  - One, first part\n- Two');
    expect(list.text).toBe('One\n  One, first part\nTwo');
    expect(only('<ol start="3"><li>Third</li><li>Fourth</li></ol>').markdown).toBe('3. Third\n4. Fourth');
  });

  it('renders definition lists as term and definition', () => {
    expect(only('<dl><dt>TTL</dt><dd>How long a record is cached.</dd></dl>').markdown).toBe(
      '- **TTL**: How long a record is cached.',
    );
  });

  it('walks a layout list of cards as separate blocks', () => {
    const blocks = blocksOf(
      '<ul><li><h3>First card</h3><p>About the first.</p></li><li><h3>Second card</h3></li></ul>',
    );
    expect(blocks.map((b) => [b.kind, b.text])).toEqual([
      ['heading', 'First card'],
      ['paragraph', 'About the first.'],
      ['heading', 'Second card'],
    ]);
  });

  it('flattens a layout table into its cells', () => {
    const blocks = blocksOf(
      '<table><tr><td><h2>Left column</h2><p>Text on the left.</p></td><td><p>Text on the right.</p></td></tr></table>',
    );
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'paragraph']);
  });

  it('pads ragged data tables and escapes pipes in cells', () => {
    const table = only(
      '<table><tr><td>a|b</td><td>c</td></tr><tr><td colspan="2">wide</td><td>extra</td></tr></table>',
    );
    expect(table.markdown).toBe('| a\\|b | c |  |\n| --- | --- | --- |\n| wide |  | extra |');
  });

  it('takes the code language from the usual highlighter conventions', () => {
    const lang = (html: string) => only(html).language;
    expect(lang('<pre><code class="language-rust">fn main() {}</code></pre>')).toBe('rust');
    expect(lang('<pre class="lang-go">package main</pre>')).toBe('go');
    expect(lang('<div class="highlight highlight-source-js"><pre>let a = 1;</pre></div>')).toBe('javascript');
    expect(lang('<pre class="brush: sql">SELECT 1</pre>')).toBe('sql');
    expect(lang('<pre><code class="hljs language-plaintext">just text</code></pre>')).toBeUndefined();
  });

  it('keeps code line breaks and grows the fence past backticks inside the code', () => {
    const code = only('<pre><code>line one\n  line two<br>line ```three```</code></pre>');
    expect(code.text).toBe('line one\n  line two\nline ```three```');
    expect(code.markdown).toBe('````\nline one\n  line two\nline ```three```\n````');
  });

  it('renders quotes, figures, rules and emphasis', () => {
    expect(only('<blockquote><p>First.</p><p>Second.</p></blockquote>').markdown).toBe('> First.\n>\n> Second.');
    expect(
      only('<figure><img src="/i.png" alt="A chart"><figcaption>Sales by year</figcaption></figure>'),
    ).toMatchObject({
      kind: 'figure',
      markdown: '![A chart](https://example.com/i.png)\nSales by year',
      text: 'Sales by year',
    });
    expect(blocksOf('<p>Above.</p><hr><p>Below.</p>')[1]).toMatchObject({ kind: 'rule', markdown: '---' });
    expect(only('<p>A <b>bold</b> and <em> soft </em> word.</p>').markdown).toBe('A **bold** and *soft* word.');
  });

  it('splits text runs at double line breaks and keeps single breaks', () => {
    const blocks = blocksOf('<div>First line<br>second line<br><br>Next paragraph</div>');
    expect(blocks.map((b) => b.text)).toEqual(['First line\nsecond line', 'Next paragraph']);
  });

  it('resolves relative links against <base> and skips same-page anchors in Markdown', () => {
    const page = extractHtml(
      '<html><head><base href="https://cdn.example.org/docs/"></head><body>' +
        '<p>See <a href="guide.html">the guide</a> or <a href="#top">the top</a>.</p></body></html>',
      'https://example.com/page',
    );
    expect(page.blocks[0]!.markdown).toBe('See [the guide](https://cdn.example.org/docs/guide.html) or the top.');
  });

  it('drops hidden elements, form controls and scripts, and keeps the HTML clean', () => {
    const block = only(
      '<div><p onclick="x()" style="color:red">Visible <span hidden>secret</span><span class="sr-only">reader</span>' +
        '<button>Buy</button><script>bad()</script><!-- note -->text.</p><p style="display:none">Gone.</p></div>',
    );
    expect(block.text).toBe('Visible text.');
    expect(block.html).toBe('<p>Visible text.</p>');
  });

  it('keeps content a desktop browser shows and drops its mobile-only copy', () => {
    const blocks = blocksOf(
      '<p class="hidden md:block">Desktop text.</p><p class="lg:hidden">Mobile copy.</p><p class="d-none d-lg-block">Wide.</p>',
    );
    expect(blocks.map((b) => b.text)).toEqual(['Desktop text.', 'Wide.']);
  });

  it('reads a "dates" box as metadata', () => {
    const blocks = blocksOf('<div class="dates"><span>Published 10:48, Tue, Nov 19, 2019</span></div>');
    expect(blocks[0]!.section).toBe('metadata');
  });

  it('drops a hidden schema.org copy of the article but keeps a script-revealed wrapper of its size', () => {
    const story = 'The river rose overnight and the town council met at dawn to plan the repairs. '.repeat(5);
    const visible = `<p>${story}</p><p>${story}</p>`;
    const copy = `<p>Copy ${story}</p><p>2019-11-13T23:06:00+01:00</p>`;
    const microdata = blocksOf(`${visible}<div style="display:none" itemscope>${copy}</div>`);
    expect(microdata.map((b) => b.text).join(' ')).not.toContain('2019-11-13');
    const revealed = blocksOf(`${visible}<div style="display:none">${copy}</div>`);
    expect(revealed.map((b) => b.text).join(' ')).toContain('2019-11-13');
  });
});
