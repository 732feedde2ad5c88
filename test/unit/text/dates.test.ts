import { describe, expect, it } from 'vitest';
import { dateFromUrl, pdfDate, toIsoDate } from '../../../src/core/text/dates.js';

const now = new Date('2025-06-01T00:00:00Z');

describe('toIsoDate', () => {
  it.each([
    ['2024-05-12', '2024-05-12T00:00:00.000Z'],
    ['2024-05-12T10:20:30Z', '2024-05-12T10:20:30.000Z'],
    ['2024-05-12T10:20:30.123+02:00', '2024-05-12T08:20:30.123Z'],
    ['2024-05-12 10:20:30', '2024-05-12T10:20:30.000Z'],
    ['Tue, 10 Jun 2003 04:00:00 GMT', '2003-06-10T04:00:00.000Z'],
    ['Mon, 10 Jun 2003 04:00:00 +0200', '2003-06-10T02:00:00.000Z'],
    ['May 12, 2024', '2024-05-12T00:00:00.000Z'],
    ['12 May 2024', '2024-05-12T00:00:00.000Z'],
    ['May 12th, 2024 3:04 pm', '2024-05-12T15:04:00.000Z'],
    ['March 3, 2020 at 10:00 AM EST', '2020-03-03T15:00:00.000Z'],
    ['2023 Jan 7', '2023-01-07T00:00:00.000Z'],
    ['2024/05/12', '2024-05-12T00:00:00.000Z'],
    ['20240512', '2024-05-12T00:00:00.000Z'],
    ['25/12/2023', '2023-12-25T00:00:00.000Z'],
    ['12/25/2023', '2023-12-25T00:00:00.000Z'],
    ['1715500000', '2024-05-12T07:46:40.000Z'],
  ])('reads %s', (input, expected) => {
    expect(toIsoDate(input, { now })).toBe(expected);
  });

  it('refuses impossible, far-future, too early and non-dates', () => {
    for (const bad of [
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2025-06-05',
      '1969-12-31',
      'not a date',
      '',
      'May 2024',
    ]) {
      expect(toIsoDate(bad, { now }), bad).toBeNull();
    }
    expect(toIsoDate('2024-02-29', { now })).toBe('2024-02-29T00:00:00.000Z');
    expect(toIsoDate('2025-06-02', { now })).toBe('2025-06-02T00:00:00.000Z'); // within the two-day slack
    expect(toIsoDate(null)).toBeNull();
    expect(toIsoDate(new Date('2020-01-01T00:00:00Z'))).toBe('2020-01-01T00:00:00.000Z');
  });
});

describe('dateFromUrl', () => {
  it.each([
    ['https://x.com/2024/05/12/slug', '2024-05-12T00:00:00.000Z'],
    ['https://x.com/blog/2024-05-12-hello', '2024-05-12T00:00:00.000Z'],
    ['https://x.com/news/2024_05_12/', '2024-05-12T00:00:00.000Z'],
    ['https://x.com/20240512/', '2024-05-12T00:00:00.000Z'],
    ['https://x.com/2024/05/', null],
    ['https://x.com/p/12345678901', null],
    ['https://x.com/2024/13/40/', null],
    ['not a url', null],
  ])('reads %s', (url, expected) => {
    expect(dateFromUrl(url, { now })).toBe(expected);
  });
});

describe('pdfDate', () => {
  it.each([
    ["D:20240131123000+01'00'", '2024-01-31T11:30:00.000Z'],
    ['D:20240131123000Z', '2024-01-31T12:30:00.000Z'],
    ["D:20240131123000-05'30'", '2024-01-31T18:00:00.000Z'],
    ['D:20240131', '2024-01-31T00:00:00.000Z'],
    ['D:2024', '2024-01-01T00:00:00.000Z'],
    ['garbage', null],
  ])('reads %s', (input, expected) => {
    expect(pdfDate(input, { now })).toBe(expected);
  });
});
