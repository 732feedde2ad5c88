/**
 * Date parsing for page metadata (meta tags, JSON-LD, feeds, front matter, PDF info, URLs) into ISO 8601
 * UTC strings. A date without a time becomes midnight UTC; impossible and far-future dates are refused.
 */

export interface DateOptions {
  /** "Now" for the future check (default: the current time). */
  now?: Date;
  /** Earliest accepted year (default 1970). */
  minYear?: number;
}

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
  janv: 1, févr: 2, fevr: 2, mars: 3, avr: 4, mai: 5, juin: 6, juil: 7, août: 8, aout: 8, déc: 12,
  ene: 1, abr: 4, ago: 8, dic: 12, okt: 10, dez: 12, mär: 3, maj: 5, mrt: 3, gen: 1, giu: 6, lug: 7, set: 9,
}; // prettier-ignore

// A published date more than this far ahead of now is a mistake (or an event date), not a publication.
const FUTURE_SLACK_MS = 2 * 24 * 3600 * 1000;
const ZONES: Record<string, number> = { z: 0, ut: 0, utc: 0, gmt: 0, est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420, cet: 60, cest: 120, bst: 60, ist: 330, jst: 540 }; // prettier-ignore

interface Parts {
  y: number;
  m: number;
  d: number;
  time?: { h: number; min: number; s: number; ms: number; offsetMin: number };
}

function zoneOffset(zone: string | undefined): number {
  if (!zone) return 0;
  const z = zone.toLowerCase();
  if (z in ZONES) return ZONES[z]!;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(z);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

function parseTime(text: string): Parts['time'] {
  const m = /(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(am|pm)?\s*(z\b|[+-]\d{2}:?\d{2}|\b(?:utc|gmt|ut|[ecmp][sd]t|cest?|bst|ist|jst)\b)?/i.exec(text); // prettier-ignore
  if (!m) return undefined;
  let h = Number(m[1]);
  if (m[5]) h = (h % 12) + (m[5].toLowerCase() === 'pm' ? 12 : 0);
  const ms = m[4] ? Math.round(Number(`0.${m[4]}`) * 1000) : 0;
  if (h > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 60) return undefined;
  return { h, min: Number(m[2]), s: Number(m[3] ?? 0), ms, offsetMin: zoneOffset(m[6]) };
}

function monthNumber(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  return MONTHS[w] ?? MONTHS[w.slice(0, 3)];
}

function parseNumeric(s: string): Parts | undefined {
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])/.exec(s);
  if (m) return { y: +m[1]!, m: +m[2]!, d: +m[3]!, time: parseTime(s.slice(m[0].length)) };
  m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?(Z)?$/.exec(s);
  if (m) {
    const time = m[4] ? { h: +m[4], min: +m[5]!, s: +(m[6] ?? 0), ms: 0, offsetMin: 0 } : undefined;
    return { y: +m[1]!, m: +m[2]!, d: +m[3]!, time };
  }
  // d/m/y or m/d/y: the day is the number above 12; when both could be, the US order (m/d/y).
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})\b/.exec(s);
  if (m) {
    const [a, b] = [+m[1]!, +m[2]!];
    const dayFirst = a > 12 || (s.includes('.') && b <= 12);
    return { y: +m[3]!, m: dayFirst ? b : a, d: dayFirst ? a : b, time: parseTime(s.slice(m[0].length)) };
  }
  return undefined;
}

function parseTextual(s: string): Parts | undefined {
  // "12 May 2024", "Tue, 10 Jun 2003 04:00:00 GMT", "May 12th, 2024 3:04 pm", "12. März 2024".
  let m = /\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:de\s+)?([\p{L}]{3,}\.?),?\s+(?:de\s+)?(\d{4})\b/iu.exec(s);
  if (m && monthNumber(m[2]!)) {
    return { y: +m[3]!, m: monthNumber(m[2]!)!, d: +m[1]!, time: parseTime(s.slice(m.index + m[0].length)) };
  }
  m = /\b([\p{L}]{3,}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/iu.exec(s);
  if (m && monthNumber(m[1]!)) {
    return { y: +m[3]!, m: monthNumber(m[1]!)!, d: +m[2]!, time: parseTime(s.slice(m.index + m[0].length)) };
  }
  // "2023 Jan 7" (citation metadata).
  m = /\b(\d{4})\s+([\p{L}]{3,}\.?)\s+(\d{1,2})\b/iu.exec(s);
  if (m && monthNumber(m[2]!)) return { y: +m[1]!, m: monthNumber(m[2]!)!, d: +m[3]! };
  return undefined;
}

function toIso(parts: Parts, options: DateOptions): string | null {
  const { y, m, d, time } = parts;
  if (y < (options.minYear ?? 1970) || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const day = Date.UTC(y, m - 1, d);
  if (new Date(day).getUTCDate() !== d) return null; // 31 April, 29 February of a common year
  const ms = time ? day + ((time.h * 60 + time.min - time.offsetMin) * 60 + time.s) * 1000 + time.ms : day;
  if (ms > (options.now ?? new Date()).getTime() + FUTURE_SLACK_MS) return null;
  return new Date(ms).toISOString();
}

/**
 * Parses a date as pages write it (ISO 8601, RFC 2822, "12 May 2024", "May 12, 2024", "2024/05/12",
 * 8-digit compact dates, Unix seconds or milliseconds) into an ISO 8601 UTC string; null when it is
 * not a date, impossible, before `minYear` or more than two days in the future.
 */
export function toIsoDate(value: unknown, options: DateOptions = {}): string | null {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    return toIsoDate(value.toISOString(), options);
  }
  if (typeof value === 'number') value = String(Math.trunc(value));
  if (typeof value !== 'string') return null;
  const s = value.trim();
  if (s.length === 0 || s.length > 200) return null;
  if (/^\d{10}$|^\d{13}$/.test(s)) {
    const date = new Date(s.length === 10 ? Number(s) * 1000 : Number(s));
    return toIsoDate(date.toISOString(), options);
  }
  const parts = parseNumeric(s) ?? parseTextual(s);
  return parts ? toIso(parts, options) : null;
}

/**
 * A publication date written in a URL path: `/2024/05/12/`, `/2024-05-12-slug`, `/2024_05_12/`,
 * `/20240512/`. Null when the URL has none (a year and month alone are not a date).
 */
export function dateFromUrl(url: string, options: DateOptions = {}): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const m =
    /\/((?:19|20)\d{2})[/_-](0?[1-9]|1[0-2])[/_-](0?[1-9]|[12]\d|3[01])(?=[/_.-]|$)/.exec(path) ??
    /[/_-]((?:19|20)\d{2})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?=[/_.-]|$)/.exec(path) ??
    /\/((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=\/|$)/.exec(path);
  if (!m) return null;
  return toIso({ y: +m[1]!, m: +m[2]!, d: +m[3]! }, { minYear: 1991, ...options });
}

/** A PDF date string (`D:20240131123000+01'00'`, any suffix after the year optional) → ISO 8601 UTC. */
export function pdfDate(value: string, options: DateOptions = {}): string | null {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*(Z|[+-]\d{2}'?\d{0,2}'?)?/.exec(value.trim());
  if (!m) return null;
  const zone = m[7]?.replace(/'/g, '');
  const hasTime = m[4] !== undefined;
  const offsetMin = zone && zone !== 'Z' ? zoneOffset(zone.length === 3 ? `${zone}00` : zone) : 0;
  const time = hasTime ? { h: +m[4]!, min: +(m[5] ?? 0), s: +(m[6] ?? 0), ms: 0, offsetMin } : undefined;
  return toIso({ y: +m[1]!, m: +(m[2] ?? 1), d: +(m[3] ?? 1), time }, options);
}
