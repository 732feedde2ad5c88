// renderText's verbosities, section filters and HTML mode, and mainText, on a hand-built page model.
import { describe, expect, it } from 'vitest';
import type { Block, Page, SectionKind } from '../../../src/core/contents/page.js';
import { mainText, renderText } from '../../../src/core/contents/render.js';

const block = (section: SectionKind, main: boolean, markdown: string, extra: Partial<Block> = {}): Block => ({
  kind: 'paragraph',
  section,
  main,
  markdown,
  text: markdown.replace(/[*#`[\]]|\(https?:[^)]*\)/g, '').trim(),
  html: `<p>${markdown}</p>`,
  ...extra,
});

const page: Page = {
  url: 'https://example.com/post',
  kind: 'html',
  title: 'A post',
  author: null,
  publishedDate: null,
  links: [],
  images: [],
  codeBlocks: [],
  blocks: [
    block('banner', false, 'We use cookies.'),
    block('navigation', false, 'Home Blog About'),
    block('body', false, '# A post', { kind: 'heading', level: 1, text: 'A post', html: '<h1>A post</h1>' }),
    block('metadata', false, 'By Ann, 1 May 2024'),
    block('body', true, 'First **paragraph** with a [link](https://example.org/x).'),
    block('body', true, '```python\nx = 1\n\n\n\ny = 2\n```', {
      kind: 'code',
      text: 'x = 1\n\n\n\ny = 2',
      language: 'python',
      html: '<pre><code class="language-python">x = 1\n\n\n\ny = 2</code></pre>',
    }),
    block('body', true, 'Last paragraph.   '),
    block('body', false, 'A reader comment.'),
    block('sidebar', false, 'Popular posts'),
    block('footer', false, '© 2024'),
  ],
};

describe('renderText', () => {
  it('compact (the default) shows the main content only, as Markdown', () => {
    const expected =
      'First **paragraph** with a [link](https://example.org/x).\n\n```python\nx = 1\n\n\n\ny = 2\n```\n\nLast paragraph.';
    expect(renderText(page)).toBe(expected);
    expect(renderText(page, { verbosity: 'compact' })).toBe(expected);
  });

  it('standard adds the rest of the body and the metadata, without chrome', () => {
    const text = renderText(page, { verbosity: 'standard' });
    expect(text.startsWith('# A post\n\nBy Ann, 1 May 2024\n\nFirst **paragraph**')).toBe(true);
    expect(text).toContain('A reader comment.');
    for (const chrome of ['cookies', 'Home Blog', 'Popular posts', '© 2024']) expect(text).not.toContain(chrome);
  });

  it('full shows every block in document order', () => {
    const text = renderText(page, { verbosity: 'full' });
    expect(text.split('\n\n')[0]).toBe('We use cookies.');
    expect(text.endsWith('Popular posts\n\n© 2024')).toBe(true);
  });

  it('includeSections picks blocks from the whole page; excludeSections removes them', () => {
    expect(renderText(page, { includeSections: ['navigation', 'footer'] })).toBe('Home Blog About\n\n© 2024');
    expect(renderText(page, { verbosity: 'full', excludeSections: ['body', 'banner'] })).toBe(
      'Home Blog About\n\nBy Ann, 1 May 2024\n\nPopular posts\n\n© 2024',
    );
    expect(renderText(page, { includeSections: ['body'], excludeSections: ['body'] })).toBe('');
  });

  it('includeHtmlTags joins the blocks’ HTML instead of their Markdown', () => {
    const html = renderText(page, { includeHtmlTags: true });
    expect(html).toContain('<pre><code class="language-python">');
    expect(html.startsWith('<p>First **paragraph**')).toBe(true);
    expect(html).not.toContain('cookies');
  });

  it('collapses blank-line runs and trailing spaces outside code, never inside it', () => {
    const text = renderText({ ...page, blocks: [block('body', true, 'a  \n\n\n\nb'), ...page.blocks.slice(5, 6)] });
    expect(text).toBe('a\n\nb\n\n```python\nx = 1\n\n\n\ny = 2\n```');
  });
});

describe('mainText', () => {
  it('is the plain text of the main content', () => {
    expect(mainText(page)).toBe('First paragraph with a link.\n\nx = 1\n\ny = 2\n\nLast paragraph.');
  });

  it('leaves out the title heading above the first paragraph', () => {
    const titled = { ...page, blocks: page.blocks.map((b) => (b.kind === 'heading' ? { ...b, main: true } : b)) };
    expect(renderText(titled).startsWith('# A post\n\nFirst')).toBe(true);
    expect(mainText(titled).startsWith('First paragraph')).toBe(true);
  });

  it('keeps a lone heading (a one-line note)', () => {
    const note = { ...page, title: 'Notes', blocks: [block('body', true, '# Notes', { kind: 'heading', level: 1 })] };
    expect(mainText(note)).toBe('Notes');
  });

  it('falls back to the body text when nothing was judged main', () => {
    const none = { ...page, blocks: page.blocks.map((b) => ({ ...b, main: false })) };
    expect(mainText(none)).toContain('A reader comment.');
    expect(mainText(none)).not.toContain('Popular posts');
  });
});
