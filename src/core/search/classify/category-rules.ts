/**
 * The category rules: each names one piece of evidence, its weight and the reason it gives. A category
 * is assigned when its fired rules' weights add up to 1 (see category.ts and docs/search-classifiers.md).
 */
import { isOrganizationType } from '../../contents/formats/structured-data.js';
import * as sites from './category-sites.js';
import { firstOf, onHost, type Signals } from './signals.js';

/** The spec's `/search` categories. */
export const CATEGORIES = ['company', 'people', 'publication', 'news', 'personal site', 'financial report'] as const;
export type DocumentCategory = (typeof CATEGORIES)[number];

export interface CategoryRule {
  category: DocumentCategory;
  /** 1 = enough on its own; less = has to be backed by other evidence. */
  weight: number;
  /** The reason when the rule fires, else undefined. */
  test: (s: Signals) => string | undefined;
}

/** A rule whose test returns true (reason as written) or a detail string (replaces `%s` in the reason). */
function rule(category: DocumentCategory, weight: number, reason: string, test: (s: Signals) => unknown): CategoryRule {
  return {
    category,
    weight,
    test: (s) => {
      const hit = test(s);
      if (!hit) return undefined;
      return typeof hit === 'string' ? reason.replace('%s', hit) : reason;
    },
  };
}

const types = (list: string) => list.trim().split(/\s+/);

const LINE_BREAK = /[\n\r\u2028\u2029]/g;
/**
 * `re.test` for a pattern anchored at line starts (`^…` with the m flag), tried at the start and after
 * each line break only: the same answer, without the engine trying every character of a long text.
 */
function atLineStarts(re: RegExp): (text: string) => boolean {
  const sticky = new RegExp(re.source, `${re.flags}y`);
  return (text) => {
    for (let i = 0; ;) {
      sticky.lastIndex = i;
      if (sticky.test(text)) return true;
      LINE_BREAK.lastIndex = i;
      if (!LINE_BREAK.test(text)) return false;
      i = LINE_BREAK.lastIndex;
    }
  };
}
// Organisations that are not companies: a university, a ministry, a charity, a band, a newsroom.
const NOT_COMPANY = new Set(
  types(`EducationalOrganization CollegeOrUniversity GovernmentOrganization GovernmentOffice
  NGO PoliticalParty ResearchOrganization ResearchProject Project FundingScheme FundingAgency LibrarySystem Library
  PerformingGroup MusicGroup DanceGroup TheaterGroup SportsOrganization SportsTeam WorkersUnion NewsMediaOrganization
  FireStation PoliceStation PostOffice SearchRescueOrganization`),
);
const PUBLICATION_TYPES = types(`ScholarlyArticle MedicalScholarlyArticle Periodical PublicationIssue PublicationVolume
  Book Chapter Dataset Thesis`);
const NEWS_TYPES = types(`NewsArticle ReportageNewsArticle AnalysisNewsArticle OpinionNewsArticle ReviewNewsArticle
  BackgroundNewsArticle AskPublicNewsArticle LiveBlogPosting`);

const isCompanyType = (t: string) => isOrganizationType(t) && !NOT_COMPANY.has(t) && !/School$/.test(t);
const hasArticle = (s: Signals) => [...s.subjectTypes].some((t) => /Article|BlogPosting|Posting|Report$/.test(t));
const pageOn = (s: Signals, table: [string, RegExp][]) => table.find(([h, p]) => onHost(s.host, h) && p.test(s.path));
const subdomainOf = (s: Signals, hosts: string[]) => hosts.find((d) => s.host.endsWith(`.${d}`));
/** Blogs share news's dated paths and og:type article; these say "blog", so those cues do not count. */
const bloggy = (s: Signals) =>
  s.subjectTypes.has('BlogPosting') ||
  s.evidence.publisherType === 'Person' ||
  /(?:^|\/)blogs?\//.test(s.path) ||
  s.host === 'medium.com' ||
  subdomainOf(s, [...sites.BLOG_PLATFORMS, ...sites.CODE_PAGES]) !== undefined;

const ABOUT_PATH = /^\/(?:[a-z]{2}(?:-[a-z]{2})?\/)?(?:about(?:-us)?|company|who-we-are|our-company|corporate)(?:\/|\.html?)?$/; // prettier-ignore
const LEGAL_SUFFIX = /\b(?:inc|ltd|llc|gmbh|plc|corp|corporation|s\.a|ag|b\.v|pty ltd|co\., ltd)\b\.?(?=\s|$|[|,–—-])/i;
const COMPANY_PROSE = /\b(?:founded in (?:19|20)\d\d|headquartered in|our (?:customers|clients|mission|products|team|investors)|employees (?:worldwide|globally|in \d+ countries)|trusted by)\b/gi; // prettier-ignore
const PERSON_PATH = /^\/(?:[a-z]{2}\/)?(?:authors?|people|person|team|staff|profiles?|users?|speakers|faculty|members?|contributors?)\/[^/?]+\/?$/; // prettier-ignore
const PERSON_TITLE = /\b(?:biography|curriculum vitae|résumé|, author at|(?:articles|posts|stories) by)\b/i;
const DATED_PATH = /\/(?:19|20)\d\d\/(?:0?[1-9]|1[0-2]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\/(?:(?:0?[1-9]|[12]\d|3[01])\/)?[^/]+/; // prettier-ignore
const DATELINE = atLineStarts(
  /^[\p{Lu}][\p{Lu} .,'-]{2,40}\s*\((?:AP|Reuters|AFP|UPI|Bloomberg|dpa|PTI|Xinhua)\)\s*[—–-]/mu,
);
const SELF_INTRO = /\b(?:about me|hi,? i['’]m|hi,? i am|hello,? i['’]m|my name is|welcome to my (?:blog|site|website|homepage|corner)|my personal (?:blog|site|website))\b/i; // prettier-ignore
const PERSONAL_TITLE = /\b(?:portfolio|personal (?:blog|website|site|homepage))\b|^[\p{Lu}][\p{L}'-]+['’]s (?:blog|site|homepage|notes)\b/iu; // prettier-ignore
const FORM = /\bform\s+(?:10-?k|10-?q|8-?k|20-?f|40-?f|6-?k)\b/i;
const FINANCE_TITLE = /\b(?:form\s+)?(?:10-?k|10-?q|8-?k|20-?f|40-?f|6-?k)\b|\b(?:annual|quarterly|interim|half[- ]year(?:ly)?|integrated) report\b|\bearnings (?:release|report|call transcript)\b|\b(?:financial|fiscal|quarterly|annual) (?:results|statements)\b|\bresults for the (?:first|second|third|fourth|fiscal) (?:quarter|half|year)\b|\b(?:q[1-4]|fy) ?(?:19|20)\d\d (?:results|earnings)\b|\bshareholder letter\b|\bletter to shareholders\b|\bproxy statement\b/i; // prettier-ignore
const FINANCE_TERMS = /\b(?:consolidated balance sheets?|statements? of (?:operations|cash flows|comprehensive income)|net income|earnings per share|diluted|operating income|total revenues?|gross margin|fiscal year|(?:share|stock)holders['’] equity|ebitda|guidance)\b/gi; // prettier-ignore
const ABSTRACT = atLineStarts(/^(?:#+\s*|\d\.?\s*)?abstract\b/im);
const REFERENCES = atLineStarts(/^(?:#+\s*|\d+\.?\s*)?(?:references|bibliography|works cited)\s*$/im);
const distinct = (re: RegExp, text: string) => new Set((text.match(re) ?? []).map((m) => m.toLowerCase())).size;

const COMPANY: CategoryRule[] = [
  rule('company', 1, "schema.org %s is the page's subject", (s) => {
    const org = s.evidence.organization;
    return org?.subject && org.types.find(isCompanyType);
  }),
  rule('company', 1, 'company profile on %s', (s) => pageOn(s, sites.COMPANY_PAGES)?.[0]),
  rule('company', 0.5, 'published by a schema.org %s', (s) => {
    const org = s.evidence.organization;
    return org && !org.subject && !hasArticle(s) && org.types.find(isCompanyType);
  }),
  rule('company', 0.5, 'site home page or company/about page', (s) => {
    return !hasArticle(s) && !bloggy(s) && (s.isHome || ABOUT_PATH.test(s.path));
  }),
  rule('company', 0.3, 'legal company suffix in the title', (s) => LEGAL_SUFFIX.test(s.title)),
  rule('company', 0.4, 'company self-description in the text', (s) => {
    return !hasArticle(s) && distinct(COMPANY_PROSE, s.head) >= 2;
  }),
];

const PEOPLE: CategoryRule[] = [
  rule('people', 1, "schema.org %s is the page's subject", (s) => firstOf(s.subjectTypes, ['Person', 'ProfilePage'])),
  rule('people', 1, 'og:type profile', (s) => s.evidence.ogType === 'profile'),
  rule('people', 1, 'profile page on %s', (s) => pageOn(s, sites.PROFILE_PAGES)?.[0]),
  rule('people', 0.6, 'person page path', (s) => PERSON_PATH.test(s.path)),
  rule('people', 0.4, 'person cue in the title', (s) => PERSON_TITLE.test(s.title)),
];

const PUBLICATION: CategoryRule[] = [
  rule('publication', 1, "schema.org %s is the page's subject", (s) => firstOf(s.subjectTypes, PUBLICATION_TYPES)),
  rule('publication', 1, 'scholarly citation_* meta tags', (s) => s.evidence.citation),
  rule('publication', 1, 'scholarly site %s', (s) =>
    sites.SCHOLARLY_HOSTS.find((d) => onHost(s.host, d) && (sites.SCHOLARLY_PATH[d]?.test(s.path) ?? true)),
  ),
  rule('publication', 0.7, 'DOI in the URL', (s) => /\/10\.\d{4,9}\/\S/.test(s.path)),
  rule('publication', 0.4, 'an Abstract section', (s) => ABSTRACT(s.head)),
  rule('publication', 0.3, 'a References section', (s) => REFERENCES(s.text)),
  rule('publication', 0.3, 'a DOI or arXiv id in the text', (s) =>
    /\b(?:doi:\s*|doi\.org\/)10\.\d{4,9}\/|\barxiv:\s*\d{4}\.\d{4,5}/i.test(s.head),
  ),
];

const NEWS: CategoryRule[] = [
  rule('news', 1, "schema.org %s is the page's subject", (s) => firstOf(s.subjectTypes, NEWS_TYPES)),
  rule('news', 0.5, 'published by a schema.org NewsMediaOrganization', (s) => {
    return s.evidence.publisherType === 'NewsMediaOrganization' || s.allTypes.has('NewsMediaOrganization');
  }),
  rule('news', 0.6, 'news site %s', (s) =>
    sites.NEWS_HOSTS.find((d) => onHost(s.host, d) && (sites.NEWS_PATH[d]?.test(s.path) ?? true)),
  ),
  rule('news', 0.4, 'news section of the site', (s) => s.host.startsWith('news.') || /^\/(?:[a-z]{2}\/)?news\//.test(s.path)), // prettier-ignore
  rule('news', 0.6, 'wire-service dateline', (s) => DATELINE(s.head)),
  rule('news', 0.5, 'breaking/live title', (s) => /^(?:breaking(?: news)?:|live:)|\blive updates?\b/i.test(s.title)),
  rule('news', 0.5, 'dated URL path', (s) => !bloggy(s) && DATED_PATH.test(s.path)),
  rule('news', 0.3, 'og:type article', (s) => !bloggy(s) && s.evidence.ogType === 'article'),
  rule('news', 0.2, 'dated article', (s) => {
    return !bloggy(s) && s.publishedDate && (hasArticle(s) || s.evidence.ogType === 'article');
  }),
];

const PERSONAL: CategoryRule[] = [
  rule('personal site', 1, 'hosted blog on %s', (s) => subdomainOf(s, sites.BLOG_PLATFORMS)),
  rule('personal site', 1, 'a ~user home directory', (s) => /^\/~[a-z0-9._-]+(?:\/|$)/.test(s.path)),
  rule('personal site', 0.7, 'a Medium author page', (s) => s.host === 'medium.com' && /^\/@[^/]+/.test(s.path)),
  rule('personal site', 0.6, 'a %s site', (s) => subdomainOf(s, sites.CODE_PAGES)),
  rule('personal site', 0.6, 'published by a schema.org Person', (s) => s.evidence.publisherType === 'Person'),
  rule('personal site', 0.5, 'a schema.org Person on the home/about page', (s) => {
    return s.subjectTypes.has('Person') && (s.isHome || /about/.test(s.path));
  }),
  rule('personal site', 0.5, 'personal-site page path', (s) =>
    /^\/(?:about-me|now|uses|colophon|cv|resume|portfolio)(?:\/|\.html?)?$/.test(s.path),
  ),
  rule('personal site', 0.5, 'first-person self-introduction', (s) => SELF_INTRO.test(`${s.title}\n${s.head.slice(0, 600)}`)), // prettier-ignore
  rule('personal site', 0.4, 'personal-site title', (s) => PERSONAL_TITLE.test(s.title)),
];

const FINANCIAL: CategoryRule[] = [
  rule('financial report', 1, 'SEC EDGAR filing', (s) => {
    return onHost(s.host, 'sec.gov') && /^\/(?:archives\/edgar\/|cgi-bin\/browse-edgar|ix\?doc=|edgar\/)/.test(s.path);
  }),
  rule('financial report', 1, 'SEC form cover page in the text', (s) => {
    return /securities and exchange commission/i.test(s.head) && FORM.test(s.head);
  }),
  rule('financial report', 0.7, 'financial-report title ("%s")', (s) => FINANCE_TITLE.exec(s.title)?.[0]),
  rule('financial report', 0.5, 'investor-relations site', (s) => {
    return (
      /^(?:ir|investors?)\./.test(s.host) || /^\/(?:[a-z]{2}\/)?(?:investor-relations|investors?|ir)\//.test(s.path)
    );
  }),
  rule('financial report', 0.4, 'financial-report URL', (s) =>
    /(?:annual-?report|10-?k|10-?q|earnings|quarterly-?results|financial-?results)/.test(s.path),
  ),
  rule('financial report', 0.4, 'financial-statement terms in the text', (s) => {
    return distinct(FINANCE_TERMS, s.text.slice(0, 20000)) >= 3;
  }),
];

/** The rules, strongest first within each category. */
export const CATEGORY_RULES: readonly CategoryRule[] = [
  ...COMPANY,
  ...PEOPLE,
  ...PUBLICATION,
  ...NEWS,
  ...PERSONAL,
  ...FINANCIAL,
];
