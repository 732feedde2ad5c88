import { describe, expect, it } from 'vitest';
import { parseNonHtml } from '../../../src/core/contents/formats/index.js';
import { DEFAULT_SUMMARY_CHARACTERS, extractiveSummary } from '../../../src/core/contents/summary.js';

const ARTICLE = `# The city library

The city library opened its new building on the river in March after three years of construction.

The building has five floors of reading rooms, a children's wing and a rooftop garden open to all visitors.

Opening hours are eight in the morning until ten at night on weekdays, and ten until six at weekends.

Parking is limited, so the library asks visitors to arrive by bus, tram or bicycle whenever they can.

The library lends books, films, music and tools, and a library card is free for every resident of the city.

Opening hours are eight in the morning until ten at night on weekdays, and ten until six at weekends.

The architects chose timber and glass to keep the reading rooms bright and warm throughout the year.
`;

const page = () => parseNonHtml('markdown', { url: 'https://news.test/library.md', text: ARTICLE });
const sentencesOf = (summary: string) => summary.split(/(?<=\.) /);

describe('extractiveSummary', () => {
  it('focuses on the query, in document order, within 600 characters', async () => {
    const p = await page();
    const summary = extractiveSummary(p, { query: 'when is the library open? opening hours' });
    expect(summary.length).toBeLessThanOrEqual(DEFAULT_SUMMARY_CHARACTERS);
    expect(summary).toContain('Opening hours are eight in the morning');
    const text = p.blocks.map((b) => b.text).join('\n');
    const positions = sentencesOf(summary).map((s) => text.indexOf(s));
    expect(positions.every((pos) => pos >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('changes with the query', async () => {
    const p = await page();
    const parking = extractiveSummary(p, { query: 'parking bus tram bicycle', maxCharacters: 120 });
    expect(parking).toBe(
      'Parking is limited, so the library asks visitors to arrive by bus, tram or bicycle whenever they can.',
    );
    const materials = extractiveSummary(p, { query: 'timber glass architects', maxCharacters: 120 });
    expect(materials).toContain('timber and glass');
  });

  it('never repeats a near-duplicate sentence', async () => {
    const summary = extractiveSummary(await page(), { query: 'opening hours weekdays weekends', maxCharacters: 1000 });
    expect(summary.match(/Opening hours are/g)).toHaveLength(1);
  });

  it('summarises the page itself without a query, favouring the lead', async () => {
    const summary = extractiveSummary(await page(), { maxCharacters: 300 });
    expect(summary.length).toBeLessThanOrEqual(300);
    expect(summary.startsWith('The city library opened its new building')).toBe(true);
  });

  it('is deterministic', async () => {
    const p = await page();
    expect(extractiveSummary(p, { query: 'library card' })).toBe(extractiveSummary(p, { query: 'library card' }));
  });

  it('cuts a single long sentence to the budget and says nothing for an empty page', async () => {
    const long = await parseNonHtml('text', {
      url: 'https://x.test/a.txt',
      text: `Title\n\n${'word '.repeat(300)}end.`,
    });
    const summary = extractiveSummary(long, { maxCharacters: 100 });
    expect(summary.length).toBeLessThanOrEqual(100);
    expect(summary.endsWith('…')).toBe(true);
    expect(extractiveSummary(await parseNonHtml('text', { url: 'https://x.test/e.txt', text: '' }), {})).toBe('');
  });
});
