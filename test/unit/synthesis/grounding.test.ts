// Citation markers, grounding and the confidence rule of synthesized answers, and the extractive answer
// written without a model.
import { describe, expect, it } from 'vitest';
import { createMarkerFilter, readCitations } from '../../../src/core/synthesis/citations.js';
import { extractiveAnswer } from '../../../src/core/synthesis/extractive.js';
import { confidenceOf, groundObject, valueAt, type Source } from '../../../src/core/synthesis/grounding.js';

const source = (n: number, evidence: string): Source => ({
  n,
  url: `https://s${n}.example/`,
  title: `Source ${n}`,
  publishedDate: null,
  evidence,
});

describe('citation markers', () => {
  it('are read in order of first citation and taken out of the text', () => {
    expect(readCitations('Pools keep sockets [1]. Agents pick pools [2, 3][1].')).toEqual({
      text: 'Pools keep sockets. Agents pick pools.',
      cited: [1, 2, 3],
    });
    expect(readCitations('An array a[i] stays; so does [note]')).toEqual({ text: 'An array a[i] stays; so does [note]', cited: [] }); // prettier-ignore
  });

  it('are taken out of a streamed text even when a marker is split between pieces', () => {
    const filter = createMarkerFilter();
    const pieces = ['Pools keep sockets [', '1', ', 2]. Agents', ' pick pools [3', ']. Done [x]'];
    const out = pieces.map((p) => filter.push(p)).join('') + filter.end();
    expect(out).toBe('Pools keep sockets. Agents pick pools. Done [x]');
    expect(filter.cited).toEqual([1, 2, 3]);
  });

  it('take the space before a marker out when the marker starts the next piece (word by word)', () => {
    const filter = createMarkerFilter();
    const pieces = ['Pools keep ', 'sockets ', '[1]. ', 'Agents ', 'pick ', 'pools ', '[2][3].\n', 'Done.'];
    const sent = pieces.map((p) => filter.push(p));
    expect(sent.join('') + filter.end()).toBe('Pools keep sockets. Agents pick pools.\nDone.');
    expect(sent[0]).toBe('Pools keep'); // the held space goes out with the next word
    expect(filter.cited).toEqual([1, 2, 3]);
  });
});

describe('grounding', () => {
  const sources = [
    source(1, 'The undici Agent holds one Pool per origin.'),
    source(2, 'An undici Agent dispatches requests to a Pool for each origin.'),
    source(3, 'Cooking pasta takes nine minutes.'),
  ];

  it('rates confidence by how many cited sources back a value and how much of it they contain', () => {
    expect(confidenceOf('one Pool per origin', [sources[0]!, sources[1]!])).toBe('high');
    expect(confidenceOf('one Pool per origin', [sources[0]!])).toBe('high'); // every word is in it
    expect(confidenceOf('one Pool per origin, with HTTP/2 multiplexing and TLS session reuse', [sources[0]!])).toBe('medium'); // prettier-ignore
    expect(confidenceOf('one Pool per origin', [sources[2]!])).toBe('low');
    expect(confidenceOf('one Pool per origin', [])).toBe('low');
  });

  it('grounds every top-level field, deeper cited paths, and only paths that exist', () => {
    const content = { dispatcher: 'Agent', items: [{ name: 'Pool' }], missing: null };
    const entries = groundObject(content, { dispatcher: [1, 2, 1], 'items[0].name': [2], 'content.nope': [1], ghost: [1] }, sources); // prettier-ignore
    expect(entries.map((e) => e.field)).toEqual(['content.dispatcher', 'content.items', 'content.missing', 'content.items[0].name']); // prettier-ignore
    expect(entries[0]!.citations.map((c) => c.url)).toEqual(['https://s1.example/', 'https://s2.example/']);
    expect(entries[1]!.citations.map((c) => c.url)).toEqual(['https://s2.example/']); // backed by its part
    expect(entries[2]).toMatchObject({ citations: [], confidence: 'low' });
  });

  it('reads values at grounding paths', () => {
    const content = { a: { b: [{ c: 1 }] } };
    expect(valueAt(content, 'content.a.b[0].c')).toBe(1);
    expect(valueAt(content, 'content.a.x')).toBeUndefined();
    expect(valueAt(content, 'content.a[0]')).toBeUndefined();
  });
});

describe('extractive answer', () => {
  it('quotes the best sentence of each source first, cited, and nothing unrelated', () => {
    const picked = extractiveAnswer('how does the undici agent pick a pool', [
      source(1, 'Cooking pasta takes nine minutes. Salt the water first.'),
      source(2, 'The undici Agent picks a Pool by the origin of each request. Pools hold sockets.'),
      source(3, 'Each undici Pool serves one origin; the Agent keeps a map of them.'),
    ]);
    expect(picked[0]).toEqual({ sentence: 'The undici Agent picks a Pool by the origin of each request.', source: 2 });
    expect(picked.map((p) => p.source)).not.toContain(1);
    expect(picked.length).toBeLessThanOrEqual(3);
  });
});
