/** What a summary's model reads: the page text bounded to 6000 characters, and the request it is sent. */
import { describe, expect, it } from 'vitest';
import { parseNonHtml } from '../../../src/core/contents/formats/index.js';
import {
  SCHEMA_SUMMARY_MAX_TOKENS,
  SUMMARY_INPUT_CHARACTERS,
  SUMMARY_MAX_TOKENS,
  summaryInput,
  summaryRequest,
} from '../../../src/core/contents/summary-prompt.js';

const markdown = (text: string) => parseNonHtml('markdown', { url: 'https://notes.test/page.md', text });
const para = (i: number) =>
  `Paragraph ${i} tells how the garden is watered in week ${i}, with a can and a hose at dawn.`;
const long = (special: Record<number, string> = {}) =>
  markdown(Array.from({ length: 150 }, (_, i) => special[i] ?? para(i)).join('\n\n'));

describe('summaryInput', () => {
  it('sends a page that fits whole', async () => {
    const page = await markdown('# Short\n\nOne paragraph about tomatoes.\n\nAnother about basil.');
    expect(await summaryInput(page, 'basil')).toBe('One paragraph about tomatoes.\n\nAnother about basil.');
  });

  it('without a query, sends the lead of a long page, marking the cut', async () => {
    const text = await summaryInput(await long(), undefined);
    expect(text.length).toBeLessThanOrEqual(SUMMARY_INPUT_CHARACTERS);
    expect(text.startsWith(para(0))).toBe(true);
    expect(text.endsWith('[…]')).toBe(true);
    expect(text).not.toContain('[…]\n\n');
  });

  it('with a query, puts the relevant passages first in line, then the lead, in page order', async () => {
    const page = await long({ 120: 'Slugs are kept off the lettuce with copper tape and beer traps.' });
    const text = await summaryInput(page, 'slugs lettuce copper');
    expect(text.length).toBeLessThanOrEqual(SUMMARY_INPUT_CHARACTERS);
    expect(text).toContain('Slugs are kept off the lettuce');
    expect(text.startsWith(para(0))).toBe(true);
    expect(text.indexOf(para(1))).toBeLessThan(text.indexOf('Slugs'));
    expect(text).toMatch(/\[…\]\n\nSlugs are kept/);
  });

  it('is empty for a page without text', async () => {
    expect(await summaryInput(await markdown(''), 'anything')).toBe('');
  });
});

describe('summaryRequest', () => {
  it('asks for a short text summary focused on the query', async () => {
    const page = await markdown('Tomatoes need sun.');
    const req = summaryRequest(page, 'Tomatoes need sun.', { query: 'light' });
    expect(req.maxTokens).toBe(SUMMARY_MAX_TOKENS);
    expect(req.json).toBeUndefined();
    expect(req.messages[0]!.content).toContain('Focus on what the page says about: light');
    expect(req.messages[1]!.content).toMatch(
      /URL: https:\/\/notes\.test\/page\.md[\s\S]*Tomatoes need sun\.\n\nFocus: light$/,
    );
  });

  it('asks for JSON following the schema, named summary', async () => {
    const schema = { type: 'object', properties: { plant: { type: 'string' } } };
    const req = summaryRequest(await markdown('Tomatoes.'), 'Tomatoes.', { schema });
    expect(req.json).toEqual({ schema, name: 'summary' });
    expect(req.maxTokens).toBe(SCHEMA_SUMMARY_MAX_TOKENS);
    expect(req.messages[0]!.content).toContain(JSON.stringify(schema));
  });
});
