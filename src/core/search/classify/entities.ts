/**
 * The spec's company entity, built from a page's schema.org organisation data (JSON-LD or microdata,
 * trimmed at extraction into `metadata.organization`). Pure: parsing only, no lookups.
 */
import type { OrganizationData } from '../../contents/page.js';

/** The spec's company entity (`entities[]` of a search result); unknown fields are null. */
export interface CompanyEntity {
  id: string;
  type: 'company';
  version: 1;
  properties: {
    name: string | null;
    foundedYear: number | null;
    description: string | null;
    workforce: { total: number | null } | null;
    headquarters: {
      address: string | null;
      city: string | null;
      postalCode: string | null;
      country?: string | null;
    } | null;
  };
}

/** Descriptions are "short": cut at a sentence end within this many characters. */
const DESCRIPTION_MAX = 300;

/** A year in `foundingDate` (`1998-09-04`, `1998`, `September 1998`), or null. */
export function foundedYear(value: string | undefined): number | null {
  const m = value?.match(/(?<!\d)(1[0-9]\d\d|20\d\d)(?!\d)/);
  return m ? Number(m[1]) : null;
}

/** A count from `12`, `"1,200"`, `"about 5000"` or a range `"51-200"` (its midpoint), or null. */
export function employeeCount(value: string | number | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (!value) return null;
  const numbers = [...value.replace(/(\d)[,. ](?=\d{3}\b)/g, '$1').matchAll(/\d+(?:\.\d+)?(?:\s*k\b)?/gi)].map((m) => {
    const n = parseFloat(m[0]);
    return /k/i.test(m[0]) ? n * 1000 : n;
  });
  if (numbers.length === 0) return null;
  const [a, b] = numbers;
  return Math.round(b !== undefined && /\d\s*(?:[-–]|to)\s*\d/.test(value) ? (a! + b) / 2 : a!);
}

/** `numberOfEmployees` as a total: a number, text, or a QuantitativeValue (`value`, else the range's midpoint). */
export function workforceTotal(value: OrganizationData['numberOfEmployees']): number | null {
  if (value === undefined || typeof value !== 'object') return employeeCount(value);
  const exact = employeeCount(value.value);
  if (exact !== null) return exact;
  const min = employeeCount(value.minValue);
  const max = employeeCount(value.maxValue);
  if (min !== null && max !== null) return Math.round((min + max) / 2);
  return min ?? max;
}

function headquarters(address: OrganizationData['address']): CompanyEntity['properties']['headquarters'] {
  if (address === undefined) return null;
  if (typeof address === 'string') return { address, city: null, postalCode: null };
  const hq: NonNullable<CompanyEntity['properties']['headquarters']> = {
    address: address.streetAddress ?? null,
    city: address.addressLocality ?? null,
    postalCode: address.postalCode ?? null,
  };
  if (address.addressCountry) hq.country = address.addressCountry;
  return hq.address || hq.city || hq.postalCode || hq.country ? hq : null;
}

function shortDescription(text: string | undefined): string | null {
  const t = text?.replace(/\s+/g, ' ').trim();
  if (!t) return null;
  if (t.length <= DESCRIPTION_MAX) return t;
  const cut = t.slice(0, DESCRIPTION_MAX);
  const end = cut.search(/[.!?](?=\s[^.!?]*$)/);
  return end > 80 ? cut.slice(0, end + 1) : `${cut.replace(/\s+\S*$/, '')}…`;
}

/** A URL as an id part: host without `www.`, path without a trailing slash, no query; lower-cased. */
function idPart(url: string | undefined): string | null {
  if (!url || !URL.canParse(url)) return null;
  const u = new URL(url);
  if (!/^https?:$/.test(u.protocol)) return null;
  return `${u.hostname.replace(/^www\./, '')}${u.pathname.replace(/\/+$/, '')}`.toLowerCase();
}

/**
 * The entity's stable id: `company:` and the organisation's own URL, else the page's host when the
 * organisation is the site's own (its name is in the host), else the page's URL (a directory listing).
 */
export function companyId(org: OrganizationData, pageUrl: string): string {
  const own = idPart(org.url);
  if (own) return `company:${own}`;
  const page = idPart(pageUrl) ?? pageUrl;
  const host = page.split('/')[0]!;
  const name = (org.name ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  const hostName = host.replace(/[^a-z0-9]/g, '');
  return `company:${name.length > 2 && hostName.includes(name) ? host : page}`;
}

/** Builds the company entity from organisation data; `fallbackDescription` serves when the org has none. */
export function companyEntity(org: OrganizationData, pageUrl: string, fallbackDescription?: string): CompanyEntity {
  return {
    id: companyId(org, pageUrl),
    type: 'company',
    version: 1,
    properties: {
      name: org.name ?? null,
      foundedYear: foundedYear(org.foundingDate),
      description: shortDescription(org.description ?? fallbackDescription),
      workforce: org.numberOfEmployees === undefined ? null : { total: workforceTotal(org.numberOfEmployees) },
      headquarters: headquarters(org.address),
    },
  };
}
