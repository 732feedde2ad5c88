/**
 * A document as the classifiers see it: URL parts, title, the head of its text, and the structured-data
 * evidence its metadata carries (validated: metadata is JSON read back from the store).
 */
import type { OrganizationData, PageEvidence } from '../../contents/page.js';

/** What the classifiers take: a stored document (`DocumentRecord` fits) or any page-like record. */
export interface ClassifiableDocument {
  url: string;
  title: string;
  text: string;
  metadata: Record<string, unknown>;
  publishedDate?: string | null;
}

/** Everything the category and moderation rules test, computed once per document. */
export interface Signals {
  url: string;
  /** Lower-cased host without a leading `www.`. */
  host: string;
  /** Lower-cased path, query included (`/2024/05/12/story?id=1`). */
  path: string;
  title: string;
  /** The first 4000 characters of the text. */
  head: string;
  text: string;
  allTypes: Set<string>;
  subjectTypes: Set<string>;
  evidence: PageEvidence;
  publishedDate: string | null;
  /** A site's home page (`/`, `/index.html`, a bare locale like `/en/`). */
  isHome: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

const numberish = (v: unknown) => (typeof v === 'number' ? v : str(v));

function addressFrom(v: unknown): OrganizationData['address'] {
  if (!isObject(v)) return str(v);
  const out: Record<string, string> = {};
  for (const key of ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry']) {
    if (str(v[key])) out[key] = v[key] as string;
  }
  return out;
}

function employeesFrom(v: unknown): OrganizationData['numberOfEmployees'] {
  if (!isObject(v)) return numberish(v);
  return { value: numberish(v.value), minValue: numberish(v.minValue), maxValue: numberish(v.maxValue) };
}

/** The stored organisation, its fields kept only with the types extraction gives them. */
function organizationFrom(value: unknown): OrganizationData | undefined {
  if (!isObject(value)) return undefined;
  const types = strings(value.types);
  if (!types || types.length === 0) return undefined;
  const org: OrganizationData = { types, subject: value.subject === true };
  for (const key of ['name', 'url', 'description', 'foundingDate'] as const)
    if (str(value[key])) org[key] = value[key] as string;
  if (value.numberOfEmployees !== undefined) org.numberOfEmployees = employeesFrom(value.numberOfEmployees);
  if (value.address !== undefined) org.address = addressFrom(value.address);
  return org;
}

/** The evidence fields of a document's metadata, each kept only when it has the documented shape. */
export function evidenceFrom(metadata: Record<string, unknown>): PageEvidence {
  const evidence: PageEvidence = {};
  const ldTypes = strings(metadata.ldTypes);
  const subjectTypes = strings(metadata.ldSubjectTypes);
  if (ldTypes) evidence.ldTypes = ldTypes;
  if (subjectTypes) evidence.ldSubjectTypes = subjectTypes;
  for (const key of ['publisherType', 'ogType', 'rating'] as const) {
    const value = str(metadata[key]);
    if (value) evidence[key] = key === 'publisherType' ? value : value.toLowerCase();
  }
  if (isObject(metadata.citation)) {
    const { journal, doi } = metadata.citation;
    evidence.citation = {
      ...(str(journal) ? { journal: journal as string } : {}),
      ...(str(doi) ? { doi: doi as string } : {}),
    };
  }
  const organization = organizationFrom(metadata.organization);
  if (organization) evidence.organization = organization;
  return evidence;
}

function urlParts(url: string): { host: string; path: string } {
  if (!URL.canParse(url)) return { host: '', path: '' };
  const u = new URL(url);
  return { host: u.hostname.toLowerCase().replace(/^www\./, ''), path: (u.pathname + u.search).toLowerCase() };
}

/** Computes the signals of a document; pure. */
export function signalsOf(doc: ClassifiableDocument): Signals {
  const { host, path } = urlParts(doc.url);
  const evidence = evidenceFrom(doc.metadata ?? {});
  const bare = path.replace(/\?.*$/, '');
  return {
    url: doc.url,
    host,
    path,
    title: (doc.title ?? '').replace(/\s+/g, ' ').trim(),
    head: (doc.text ?? '').slice(0, 4000),
    text: doc.text ?? '',
    allTypes: new Set(evidence.ldTypes ?? []),
    subjectTypes: new Set(evidence.ldSubjectTypes ?? []),
    evidence,
    publishedDate: doc.publishedDate ?? null,
    isHome: /^\/(?:(?:index|default|home)\.(?:html?|php|aspx?)|[a-z]{2}(?:[-_][a-z]{2})?\/?)?$/.test(bare),
  };
}

/** True when `host` is `domain` or one of its subdomains. */
export function onHost(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** The first of `wanted` that is in the set, or undefined. */
export function firstOf(types: Set<string>, wanted: readonly string[]): string | undefined {
  return wanted.find((t) => types.has(t));
}
