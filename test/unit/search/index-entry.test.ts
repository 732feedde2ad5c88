// A stored document → its index entry: a URL whose path holds a malformed percent-escape still indexes
// (its path words read as they are), and its words are in the URL field.
import { describe, expect, it } from 'vitest';
import { toIndexEntry } from '../../../src/core/search/index-entry.js';
import { FIELD_COUNT, FIELDS } from '../../../src/store/search-index/search-index.types.js';
import { storedDoc } from '../../helpers/documents.js';

describe('index entry', () => {
  it('indexes a URL with a malformed escape, reading its path words as they are', () => {
    const entry = toIndexEntry(storedDoc('https://shop.example/100%-cotton/shirts', 'Shirts', 'Plain shirts.'));
    const url = FIELDS.indexOf('url');
    const inUrl = entry.terms.filter((_, i) => entry.freqs[i * FIELD_COUNT + url]! > 0);
    expect(inUrl).toEqual(expect.arrayContaining(['cotton', 'shirt']));
    expect(entry.host).toBe('shop.example');
  });
});
