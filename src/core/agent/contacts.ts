/**
 * Contact fields of a structured answer are kept only when the pages a run read show them: an `email`,
 * `phone` or `uri` field (by its schema's `format`) whose value does not appear in any source page's text
 * or links is set to null, never guessed. Emails compare case-insensitively, phone numbers by their
 * digits (at least 7), URIs without scheme, `www.` and trailing slash. Kept emails and phone numbers are
 * counted: each is a contact enrichment, priced by the price table.
 */

export type ContactFormat = 'email' | 'phone' | 'uri';

export interface ContactCheck {
  /** The structured value with unverified contact fields set to null. */
  value: unknown;
  /** Contact values kept because a page shows them, by format. */
  kept: Record<ContactFormat, number>;
  /** JSON paths of the fields set to null. */
  dropped: string[];
}

const digits = (s: string) => s.replace(/\D/g, '');
const bareUri = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');

/** What a page must contain for a value of `format` to count as shown there (lower case text). */
function shown(format: ContactFormat, value: string, evidence: { text: string; digits: string }): boolean {
  if (format === 'email') return value.includes('@') && evidence.text.includes(value.trim().toLowerCase());
  if (format === 'phone') {
    const d = digits(value);
    return d.length >= 7 && evidence.digits.includes(d.replace(/^0+/, '').slice(-9));
  }
  const bare = bareUri(value);
  return bare.length > 3 && evidence.text.includes(bare);
}

const formatOf = (schema: Record<string, unknown> | undefined): ContactFormat | undefined => {
  const f = schema?.format;
  if (f === 'email' || f === 'uri' || f === 'url') return f === 'url' ? 'uri' : f;
  if (f === 'phone' || f === 'tel') return 'phone';
  return undefined;
};

/** The sub-schema for a property or array item, following `anyOf`/`oneOf` nullable wrappers loosely. */
function branch(
  schema: Record<string, unknown> | undefined,
  key: string | number,
): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const alternatives = [schema, ...((schema.anyOf ?? schema.oneOf ?? []) as Record<string, unknown>[])];
  for (const s of alternatives) {
    if (typeof key === 'number' && s.items) return s.items as Record<string, unknown>;
    const props = s.properties as Record<string, Record<string, unknown>> | undefined;
    if (typeof key === 'string' && props?.[key]) return props[key];
  }
  return undefined;
}

const formatIn = (schema: Record<string, unknown> | undefined): ContactFormat | undefined =>
  formatOf(schema) ?? ((schema?.anyOf ?? schema?.oneOf ?? []) as Record<string, unknown>[]).map(formatOf).find(Boolean);

/** Checks every contact field of `value` (shaped by `schema`) against the pages' texts. */
export function checkContacts(value: unknown, schema: Record<string, unknown>, pages: readonly string[]): ContactCheck {
  const text = pages.join('\n').toLowerCase();
  const evidence = { text, digits: digits(text) };
  const kept: Record<ContactFormat, number> = { email: 0, phone: 0, uri: 0 };
  const dropped: string[] = [];
  const walk = (v: unknown, s: Record<string, unknown> | undefined, path: string): unknown => {
    const format = formatIn(s);
    if (format && typeof v === 'string') {
      if (shown(format, v, evidence)) {
        kept[format]++;
        return v;
      }
      dropped.push(path);
      return null;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, branch(s, i), `${path}[${i}]`));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, branch(s, k), path ? `${path}.${k}` : k)])); // prettier-ignore
    }
    return v;
  };
  return { value: walk(value, schema, ''), kept, dropped };
}
