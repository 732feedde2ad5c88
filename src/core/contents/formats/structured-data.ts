/**
 * schema.org structured data (JSON-LD nodes, microdata items) → the page evidence the search classifiers
 * read: the types present, the types of the page's own subject, its publisher's type and its organisation.
 */
import type { Element } from 'domhandler';
import { textContent } from 'domutils';
import type { OrganizationData, PageEvidence } from '../page.js';

type Json = Record<string, unknown>;

// Organization and its subtypes, LocalBusiness's many subtypes included (schema.org, 2024 vocabulary):
// the named ones, and the rest by the endings schema.org gives them (BookStore, LegalService, ...).
const ORG_NAMED = new Set(
  'Organization Corporation LocalBusiness OnlineBusiness OnlineStore NGO Airline Consortium Cooperative EducationalOrganization CollegeOrUniversity GovernmentOrganization MedicalOrganization NewsMediaOrganization PerformingGroup MusicGroup DanceGroup TheaterGroup PoliticalParty ResearchOrganization SportsOrganization SportsTeam WorkersUnion LibrarySystem FundingScheme Project ResearchProject FundingAgency AnimalShelter ArchiveOrganization ChildCare Dentist DryCleaningOrLaundry Electrician Plumber Locksmith HousePainter Attorney Notary Library BedAndBreakfast Campground Hostel Hotel Motel Resort VacationRental Bakery BarOrPub Brewery CafeOrCoffeeShop Distillery Winery HealthClub TattooParlor AutoDealer AutoRental AutoRepair AutoWash GasStation MotorcycleDealer MotorcycleRepair AdultEntertainment AmusementPark ArtGallery Casino ComedyClub MovieTheater NightClub AutomatedTeller BankOrCreditUnion Florist InternetCafe RealEstateAgent RecyclingCenter SelfStorage ShoppingCenter TouristInformationCenter RadioStation TelevisionStation Pharmacy Optician Physician Hospital VeterinaryCare FireStation PoliceStation GovernmentOffice PostOffice BowlingAlley ExerciseGym GolfCourse SkiResort SportsClub StadiumOrArena PublicSwimmingPool TennisComplex'.split(
    ' ',
  ),
);
const ORG_ENDING =
  /(?:Store|Shop|Business|Service|Agency|Restaurant|Salon|Contractor|Company|Organization|School|Clinic|Spa)$/;

/** True for schema.org Organization and its subtypes (short type names). */
export function isOrganizationType(type: string): boolean {
  return ORG_NAMED.has(type) || ORG_ENDING.test(type);
}

// Site furniture: never what a page is about.
const FURNITURE =
  /^(?:WebSite|BreadcrumbList|ListItem|SiteNavigationElement|ImageObject|SearchAction|EntryPoint|ReadAction|WPHeader|WPFooter|WPSideBar|Offer|AggregateOffer|Rating|AggregateRating|Brand)$/;
// Keys through which an item only supports another (its publisher, author, site, ...).
const SUPPORTING =
  /^(?:publisher|author|creator|contributor|editor|provider|copyrightHolder|sourceOrganization|funder|sponsor|brand|manufacturer|seller|worksFor|affiliation|memberOf|parentOrganization|subOrganization|alumniOf|isPartOf|hiringOrganization|organizer|performer|reviewedBy|maintainer|owner|logo|image|breadcrumb|potentialAction)$/;
const SUBJECT_KEY = /^(?:about|mainEntity)$/;
const ARTICLE_LIKE = /Article|BlogPosting|Posting|Report/;

/** schema.org type names of a node, short (`http://schema.org/Person`, `schema:Person` → `Person`). */
export function typesOf(node: Json): string[] {
  return [node['@type']]
    .flat()
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^.*[/:#]/, '').trim())
    .filter((t) => /^[A-Za-z]+$/.test(t));
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return clean(value) || undefined;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return text(value[0]);
  if (isObject(value)) return text(value.name ?? value['@value'] ?? value.url);
  return undefined;
}

function numberish(value: unknown): string | number | undefined {
  return typeof value === 'number' ? value : text(value);
}

/** References from one node to others, by key: inline objects and `{"@id"}` pointers alike. */
function references(node: Json): { key: string; value: Json }[] {
  const out: { key: string; value: Json }[] = [];
  for (const [key, raw] of Object.entries(node)) {
    if (key.startsWith('@')) continue;
    for (const value of [raw].flat()) if (isObject(value)) out.push({ key, value });
  }
  return out;
}

/** The items a page is about: not furniture, and not referenced only as someone's publisher or author. */
function subjectsOf(nodes: Json[], topLevelItems: Json[]): Json[] {
  const byId = new Map(nodes.filter((n) => typeof n['@id'] === 'string').map((n) => [n['@id'] as string, n]));
  const supporting = new Set<Json>();
  const subject = new Set<Json>();
  for (const node of nodes) {
    for (const { key, value } of references(node)) {
      const target = typeof value['@id'] === 'string' ? (byId.get(value['@id']) ?? value) : value;
      if (key === 'mainEntityOfPage') subject.add(node);
      else if (SUBJECT_KEY.test(key) && typesOf(target).length > 0) subject.add(target);
      else if (SUPPORTING.test(key)) supporting.add(target);
    }
  }
  const candidates = [...nodes, ...topLevelItems].filter((n) => subject.has(n) || !supporting.has(n));
  return [...new Set([...candidates, ...subject])].filter((n) => !typesOf(n).every((t) => FURNITURE.test(t)));
}

function publisherOf(nodes: Json[], subjects: Json[]): Json | undefined {
  const byId = new Map(nodes.filter((n) => typeof n['@id'] === 'string').map((n) => [n['@id'] as string, n]));
  const ordered = [...subjects.filter((n) => typesOf(n).some((t) => ARTICLE_LIKE.test(t))), ...nodes];
  for (const node of ordered) {
    const raw = [node.publisher].flat()[0];
    if (!isObject(raw)) continue;
    const target = typeof raw['@id'] === 'string' ? (byId.get(raw['@id']) ?? raw) : raw;
    if (typesOf(target).length > 0) return target;
  }
  return undefined;
}

function trimAddress(value: unknown): OrganizationData['address'] {
  const first = [value].flat()[0];
  if (!isObject(first)) return text(first);
  const fields = ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry'] as const;
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = text(first[f]);
    if (v) out[f] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function trimEmployees(value: unknown): OrganizationData['numberOfEmployees'] {
  const first = [value].flat()[0];
  if (!isObject(first)) return numberish(first);
  const out: { value?: string | number; minValue?: string | number; maxValue?: string | number } = {};
  for (const f of ['value', 'minValue', 'maxValue'] as const) {
    const v = numberish(first[f]);
    if (v !== undefined) out[f] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** An organisation node trimmed to the company entity's fields (see src/core/search/classify/entities.ts). */
function toOrganization(node: Json, subject: boolean): OrganizationData {
  const org: OrganizationData = { types: typesOf(node), subject };
  const place = isObject(node.location) ? node.location : undefined;
  const fields = {
    name: text(node.name ?? node.legalName),
    url: text(node.url),
    description: text(node.description)?.slice(0, 1000),
    foundingDate: text(node.foundingDate),
    numberOfEmployees: trimEmployees(node.numberOfEmployees),
    address: trimAddress(node.address ?? place?.address),
    // contact points an agent run may fill contact fields from
    email: text(node.email)?.replace(/^mailto:/i, ''),
    telephone: text(node.telephone),
  };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.assign(org, { [key]: value });
  return org;
}

const isOrg = (n: Json) => typesOf(n).some(isOrganizationType);

/**
 * The one organisation the page is about, else the organisation publishing it. A listing of several is
 * about none; next to an article, a site-wide organisation block is the publisher, not the subject.
 */
function organizationOf(subjects: Json[], publisher: Json | undefined): OrganizationData | undefined {
  const orgs = subjects.filter(isOrg);
  const names = new Set(orgs.map((o) => text(o.name) ?? ''));
  const article = subjects.some((n) => typesOf(n).some((t) => ARTICLE_LIKE.test(t)));
  if (orgs.length > 0 && names.size === 1) return toOrganization(orgs[0]!, !article);
  return publisher && isOrg(publisher) ? toOrganization(publisher, false) : undefined;
}

function microdataValue(el: Element): string {
  const a = el.attribs;
  const raw =
    a.content ??
    a.datetime ??
    (/^(?:a|link|area)$/.test(el.name) ? a.href : undefined) ??
    (/^(?:img|audio|video|source|embed|iframe)$/.test(el.name) ? a.src : undefined) ??
    (el.name === 'data' || el.name === 'meter' ? a.value : undefined);
  return clean(raw ?? textContent(el));
}

/** A microdata item (an element with `itemscope`) as a JSON-LD-like node, nested items as nested objects. */
export function microdataNode(item: Element, depth = 0): Json {
  const node: Json = { '@type': (item.attribs.itemtype ?? '').split(/\s+/).filter(Boolean) };
  const visit = (el: Element) => {
    for (const child of el.children) {
      if (child.type !== 'tag' && child.type !== 'script') continue;
      const c = child as Element;
      const props = (c.attribs.itemprop ?? '').split(/\s+/).filter(Boolean);
      const nested = 'itemscope' in c.attribs;
      const value = nested ? (depth < 4 ? microdataNode(c, depth + 1) : undefined) : microdataValue(c);
      for (const p of props) if (value !== undefined && node[p] === undefined) node[p] = value;
      if (!nested) visit(c);
    }
  };
  visit(item);
  return node;
}

/** Types of every item, nested ones included. */
function allTypes(nodes: Json[], seen = new Set<string>(), depth = 0): Set<string> {
  for (const node of nodes) {
    for (const t of typesOf(node)) seen.add(t);
    if (depth < 3)
      allTypes(
        references(node).map((r) => r.value),
        seen,
        depth + 1,
      );
  }
  return seen;
}

/** Evidence from a page's JSON-LD nodes (flattened: scripts, `@graph`, `mainEntity`) and top-level microdata items. */
export function readStructuredData(jsonLd: Json[], items: Element[]): PageEvidence {
  const micro = items
    .filter((el) => !el.attribs.itemprop)
    .slice(0, 50)
    .map((el) => microdataNode(el));
  const nodes = [...jsonLd, ...micro];
  if (nodes.length === 0) return {};
  const subjects = subjectsOf(jsonLd, micro);
  const publisher = publisherOf(nodes, subjects);
  const evidence: PageEvidence = {};
  const types = [...allTypes(nodes)];
  const subjectTypes = [...new Set(subjects.flatMap(typesOf))];
  if (types.length > 0) evidence.ldTypes = types.slice(0, 40);
  if (subjectTypes.length > 0) evidence.ldSubjectTypes = subjectTypes.slice(0, 20);
  const publisherType = publisher ? typesOf(publisher)[0] : undefined;
  if (publisherType) evidence.publisherType = publisherType;
  const organization = organizationOf(subjects, publisher);
  if (organization) evidence.organization = organization;
  return evidence;
}
