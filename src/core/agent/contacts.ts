/**
 * Contact fields of a structured answer are kept only when the pages a run read show them: an `email`,
 * `phone` or `uri` field (by its schema's `format`) whose value does not appear in any source page's text
 * or links is set to null, never guessed. Emails compare case-insensitively, phone numbers by their
 * digits (at least 7), URIs without scheme, `www.` and trailing slash; a field's schema is found through
 * local `$ref`s too. Kept emails and phone numbers are counted: each is a contact enrichment, priced by the
 * price table.
 */
import { resolveLocalRef } from '../../lib/json-schema-refs.js';

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

type Schema = Record<string, unknown>;

/** `schema` with its local `$ref`s followed (a few hops at most: a cycle of bare references ends). */
function deref(root: Schema, schema: Schema | undefined): Schema | undefined {
  let node = schema;
  for (let hops = 0; hops < 16 && typeof node?.$ref === 'string'; hops++) {
    const target = resolveLocalRef(root, node.$ref);
    node = typeof target === 'object' && target !== null ? (target as Schema) : undefined;
  }
  return node;
}

/** The schema and its `anyOf`/`oneOf` alternatives (nullable wrappers), references followed. */
function alternativesOf(root: Schema, schema: Schema | undefined): Schema[] {
  const s = deref(root, schema);
  if (!s) return [];
  const options = (s.anyOf ?? s.oneOf ?? []) as Schema[];
  return [s, ...options.map((o) => deref(root, o)).filter((o): o is Schema => o !== undefined)];
}

/** The sub-schema for a property or array item, following `anyOf`/`oneOf` nullable wrappers loosely. */
function branch(root: Schema, schema: Schema | undefined, key: string | number): Schema | undefined {
  for (const s of alternativesOf(root, schema)) {
    if (typeof key === 'number' && s.items) return s.items as Schema;
    const props = s.properties as Record<string, Schema> | undefined;
    if (typeof key === 'string' && props?.[key]) return props[key];
  }
  return undefined;
}

const formatIn = (root: Schema, schema: Schema | undefined): ContactFormat | undefined =>
  alternativesOf(root, schema).map(formatOf).find(Boolean);

/** Checks every contact field of `value` (shaped by `schema`) against the pages' texts. */
export function checkContacts(value: unknown, schema: Record<string, unknown>, pages: readonly string[]): ContactCheck {
  const text = pages.join('\n').toLowerCase();
  const evidence = { text, digits: digits(text) };
  const kept: Record<ContactFormat, number> = { email: 0, phone: 0, uri: 0 };
  const dropped: string[] = [];
  const walk = (v: unknown, s: Record<string, unknown> | undefined, path: string): unknown => {
    const format = formatIn(schema, s);
    if (format && typeof v === 'string') {
      if (shown(format, v, evidence)) {
        kept[format]++;
        return v;
      }
      dropped.push(path);
      return null;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, branch(schema, s, i), `${path}[${i}]`));
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [k, walk(item, branch(schema, s, k), path ? `${path}.${k}` : k)]),
      );
    }
    return v;
  };
  return { value: walk(value, schema, ''), kept, dropped };
}
