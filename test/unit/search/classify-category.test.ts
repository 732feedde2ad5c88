import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { evidenceOf } from '../../../src/core/contents/page.js';
import { mainText } from '../../../src/core/contents/render.js';
import {
  assignedCategories,
  CATEGORY_THRESHOLD,
  categoryEvidence,
  classifyCategories,
} from '../../../src/core/search/classify/category.js';
import { signalsOf } from '../../../src/core/search/classify/signals.js';
import { classifyDocument } from '../../../src/core/search/classify/index.js';

/** A page as pages.service stores it (through JSON, like the documents table), then classified. */
function categoriesOf(html: string, url: string) {
  const page = extractHtml(html, url);
  const metadata = JSON.parse(JSON.stringify({ description: page.description, ...evidenceOf(page) }));
  const doc = { url: page.url, title: page.title, text: mainText(page), metadata, publishedDate: page.publishedDate };
  return classifyDocument(doc);
}

const ld = (data: unknown) =>
  `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', ...(data as object) })}</script>`; // prettier-ignore
const html = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const prose = `<p>The committee met on Tuesday to review the proposals submitted over the summer, and after a long
  discussion agreed to publish its findings before the end of the year. Members noted that the work had taken
  longer than planned but said the extra time had improved the quality of the final document.</p>`;

describe('company', () => {
  it('takes a subject Organization', () => {
    const r = categoriesOf(
      html(`<title>Initech</title>${ld({ '@type': 'Organization', name: 'Initech', url: 'https://initech.example' })}`, `<main><h1>Initech</h1>${prose}</main>`), // prettier-ignore
      'https://initech.example/',
    );
    expect(r.categories).toEqual(['company']);
    expect(r.categoryReasons.company).toContain("schema.org Organization is the page's subject");
  });

  it('takes a business directory profile and an about page published by an Organization', () => {
    expect(categoriesOf(html('<title>Stripe - Crunchbase</title>', `<main>${prose}</main>`), 'https://www.crunchbase.com/organization/stripe').categories).toEqual(['company']); // prettier-ignore
    const graph = { '@graph': [{ '@type': 'WebSite', '@id': '#s', publisher: { '@id': '#o' } }, { '@type': 'Corporation', '@id': '#o', name: 'Umbrella Corp' }] }; // prettier-ignore
    const r = categoriesOf(html(`<title>About us - Umbrella</title>${ld(graph)}`, `<main><h1>About us</h1>${prose}</main>`), 'https://umbrella.example/about-us'); // prettier-ignore
    expect(r.categoryReasons.company).toEqual(['published by a schema.org Corporation', 'site home page or company/about page']); // prettier-ignore
  });

  it('does not take an article on a company blog, nor a university', () => {
    const article = { '@type': 'Article', headline: 'Release notes', publisher: { '@type': 'Organization', name: 'Initech' } }; // prettier-ignore
    expect(categoriesOf(html(`<title>Release notes</title>${ld(article)}`, `<article><h1>Release notes</h1>${prose}</article>`), 'https://initech.example/updates/release-notes').categories).not.toContain('company'); // prettier-ignore
    expect(categoriesOf(html(`<title>Univ</title>${ld({ '@type': 'CollegeOrUniversity', name: 'State University' })}`, `<main>${prose}</main>`), 'https://state.example.edu/').categories).not.toContain('company'); // prettier-ignore
  });
});

describe('people', () => {
  it('takes a ProfilePage with a Person, og:type profile, and LinkedIn profiles', () => {
    const profile = { '@type': 'ProfilePage', mainEntity: { '@type': 'Person', name: 'Grace Hopper', jobTitle: 'Rear Admiral' } }; // prettier-ignore
    const r = categoriesOf(html(`<title>Grace Hopper</title>${ld(profile)}`, `<main><h1>Grace Hopper</h1>${prose}</main>`), 'https://people.example/grace'); // prettier-ignore
    expect(r.categories).toContain('people');
    expect(r.categoryReasons.people).toContain("schema.org Person is the page's subject");
    expect(categoriesOf(html('<title>Ada</title><meta property="og:type" content="profile">', `<main>${prose}</main>`), 'https://social.example/ada').categories).toEqual(['people']); // prettier-ignore
    expect(categoriesOf(html('<title>Linus T. | LinkedIn</title>', `<main>${prose}</main>`), 'https://www.linkedin.com/in/linus-t/').categories).toEqual(['people']); // prettier-ignore
  });

  it('does not take an article whose author is a Person', () => {
    const graph = { '@graph': [{ '@type': 'Article', headline: 'Notes', author: { '@id': '#p' } }, { '@type': 'Person', '@id': '#p', name: 'Ada Lovelace' }] }; // prettier-ignore
    const r = categoriesOf(html(`<title>Notes</title>${ld(graph)}`, `<article><h1>Notes</h1>${prose}</article>`), 'https://journal.example/notes'); // prettier-ignore
    expect(r.categories).not.toContain('people');
  });
});

describe('publication', () => {
  it('takes ScholarlyArticle, citation_* tags and arXiv abstracts', () => {
    expect(categoriesOf(html(`<title>Paper</title>${ld({ '@type': 'ScholarlyArticle', headline: 'On graphs' })}`, `<main>${prose}</main>`), 'https://journal.example/on-graphs').categories).toContain('publication'); // prettier-ignore
    const highwire = '<title>Deep nets</title><meta name="citation_title" content="Deep nets"><meta name="citation_doi" content="doi:10.1000/xyz123"><meta name="citation_journal_title" content="J. Examples">'; // prettier-ignore
    const r = categoriesOf(html(highwire, `<main>${prose}</main>`), 'https://press.example/article/77');
    expect(r.categoryReasons.publication).toEqual(['scholarly citation_* meta tags']);
    expect(categoriesOf(html('<title>[2401.00001] A study</title>', `<main>${prose}</main>`), 'https://arxiv.org/abs/2401.00001').categories).toEqual(['publication']); // prettier-ignore
  });

  it('takes a paper by its sections, not a blog post that says "abstract"', () => {
    const paper = `<main><h1>Sparse attention</h1><h2>Abstract</h2>${prose}<p>doi:10.1145/3580305.3599999</p><h2>References</h2><ol><li>A. Author. Graphs. 2020.</li></ol></main>`; // prettier-ignore
    expect(categoriesOf(html('<title>Sparse attention</title>', paper), 'https://files.example/sparse.html').categories).toEqual(['publication']); // prettier-ignore
    const post = `<main><h1>Abstract art for beginners</h1><p>Abstract painting is about colour and form.</p>${prose}</main>`; // prettier-ignore
    expect(categoriesOf(html('<title>Abstract art for beginners</title>', post), 'https://artclass.example/abstract-art').categories).toEqual([]); // prettier-ignore
  });
});

describe('news', () => {
  it('takes NewsArticle, and a dated og:article on a news path', () => {
    const r = categoriesOf(html(`<title>Flood</title>${ld({ '@type': 'NewsArticle', headline: 'Rivers rise', datePublished: '2024-05-12' })}`, `<article><h1>Rivers rise</h1>${prose}</article>`), 'https://paper.example/story/rivers'); // prettier-ignore
    expect(r.categories).toEqual(['news']);
    const og = '<title>Council votes</title><meta property="og:type" content="article"><meta property="article:published_time" content="2024-05-12T08:00:00Z">'; // prettier-ignore
    const dated = categoriesOf(html(og, `<article><h1>Council votes</h1>${prose}</article>`), 'https://gazette.example/2024/05/12/council-votes/'); // prettier-ignore
    expect(dated.categoryReasons.news).toEqual(['dated URL path', 'og:type article', 'dated article']);
  });

  it('takes a wire dateline and known outlets', () => {
    const wire = `<article><h1>Talks resume</h1><p>GENEVA (Reuters) — Negotiators resumed talks on Monday after a week-long pause.</p>${prose}</article>`; // prettier-ignore
    expect(categoriesOf(html('<title>Talks resume</title><meta property="og:type" content="article">', wire), 'https://www.theguardian.com/world/talks').categories).toEqual(['news']); // prettier-ignore
  });

  it('does not take a dated post on a personal blog as news', () => {
    const og = '<title>My week with Rust</title><meta property="og:type" content="article"><meta property="article:published_time" content="2024-05-12T08:00:00Z">'; // prettier-ignore
    const r = categoriesOf(html(og, `<article><h1>My week with Rust</h1>${prose}</article>`), 'https://jane.github.io/2024/05/12/rust-week/'); // prettier-ignore
    expect(r.categories).not.toContain('news');
  });
});

describe('personal site', () => {
  it('takes hosted blogs, ~user pages and a self-introduction on a site published by a Person', () => {
    expect(categoriesOf(html('<title>Notes</title>', `<main>${prose}</main>`), 'https://janedoe.substack.com/p/notes').categories).toEqual(['personal site']); // prettier-ignore
    expect(categoriesOf(html('<title>Home</title>', `<main>${prose}</main>`), 'https://cs.uni.example.edu/~jdoe/').categories).toContain('personal site'); // prettier-ignore
    const site = { '@graph': [{ '@type': 'WebSite', '@id': '#s', publisher: { '@id': '#me' } }, { '@type': 'Person', '@id': '#me', name: 'Sam Park' }] }; // prettier-ignore
    const r = categoriesOf(html(`<title>Sam Park</title>${ld(site)}`, `<main><h1>Hi, I'm Sam</h1><p>I'm a software engineer in Lisbon. Welcome to my corner of the web.</p>${prose}</main>`), 'https://sampark.example/'); // prettier-ignore
    expect(r.categories).toContain('personal site');
    expect(r.categoryReasons['personal site']).toEqual(['published by a schema.org Person', 'first-person self-introduction']); // prettier-ignore
  });

  it('does not take a project documentation page on github.io by its host alone', () => {
    expect(categoriesOf(html('<title>API reference</title>', `<main><h1>API reference</h1>${prose}</main>`), 'https://acme.github.io/widgets/api/').categories).toEqual([]); // prettier-ignore
  });
});

describe('financial report', () => {
  it('takes EDGAR filings, report titles with statement terms, and investor-relations releases', () => {
    expect(categoriesOf(html('<title>aapl-20230930</title>', `<main>${prose}</main>`), 'https://www.sec.gov/Archives/edgar/data/320193/000032019323000106/aapl-20230930.htm').categories).toEqual(['financial report']); // prettier-ignore
    const results = `<main><h1>Q3 2024 results</h1><p>Total revenue rose 12% to $4.1 billion. Net income was $610 million, or $1.02 diluted earnings per share. Operating income grew in every segment and the company raised its guidance for the fiscal year.</p></main>`; // prettier-ignore
    const r = categoriesOf(html('<title>Initech Reports Third Quarter Financial Results</title>', results), 'https://investors.initech.example/news/2024-q3'); // prettier-ignore
    expect(r.categories).toContain('financial report');
    expect(r.categoryReasons['financial report']).toEqual(['financial-report title ("Financial Results")', 'investor-relations site', 'financial-statement terms in the text']); // prettier-ignore
  });

  it('does not take a news story that mentions revenue', () => {
    const story = `<article><h1>Startups rethink hiring</h1><p>Founders say revenue matters more than growth this year.</p>${prose}</article>`; // prettier-ignore
    expect(categoriesOf(html('<title>Startups rethink hiring</title>', story), 'https://magazine.example/startups-hiring').categories).not.toContain('financial report'); // prettier-ignore
  });
});

describe('classifyCategories', () => {
  it('reads evidence straight from a stored document, ignoring malformed fields', () => {
    const doc = { url: 'https://x.example/p', title: 'P', text: 'Plain text.', metadata: { ldSubjectTypes: 'NewsArticle', organization: { name: 'X' }, ogType: 7 } }; // prettier-ignore
    expect(classifyCategories(doc)).toEqual([]);
    const stored = { ...doc, metadata: { ldSubjectTypes: ['NewsArticle'] } };
    expect(classifyCategories(stored)).toEqual([{ category: 'news', score: 1, reasons: ["schema.org NewsArticle is the page's subject"] }]); // prettier-ignore
  });
});

describe('assignedCategories', () => {
  it('assigns what categoryEvidence assigns, with the same reasons, on documents that fire many rules', () => {
    const urls = [
      'https://acme.example/',
      'https://acme.example/about-us',
      'https://news.example.com/2024/05/12/story',
      'https://ir.acme.example/news/q1',
      'https://www.sec.gov/Archives/edgar/data/1/x.htm',
      'https://jane.github.io/',
      'https://example.org/~jane/',
      'https://example.org/people/jane-doe',
      'https://doi.example/10.1234/abc',
      'https://acme.example/annual-report-2023',
    ];
    const titles = ['Acme Inc.', 'Annual report 2023', 'Jane Doe: biography', "Jane's blog", 'Live updates: storm', ''];
    const texts = [
      'Founded in 1999, headquartered in Ohio, our customers and our team are trusted by many.',
      'Abstract\nWe study cells.\nReferences\n1. Doe J. doi:10.1234/abc',
      "Hi, I'm Jane. Welcome to my blog.",
      'Consolidated balance sheets, net income, earnings per share and total revenue for the fiscal year.',
      'SECURITIES AND EXCHANGE COMMISSION\nForm 10-K annual report',
      'LONDON (Reuters) - Markets fell.',
    ];
    let assigned = 0;
    for (const url of urls)
      for (const title of titles)
        for (const text of texts) {
          for (const metadata of [{}, { ogType: 'article', publisherType: 'Person' }]) {
            const s = signalsOf({ url, title, text, metadata, publishedDate: '2024-05-12T00:00:00.000Z' });
            const expected = categoryEvidence(s).filter((v) => v.score >= CATEGORY_THRESHOLD);
            expect(assignedCategories(s), `${url} ${title} ${text.slice(0, 20)}`).toEqual(expected);
            assigned += expected.length;
          }
        }
    expect(assigned).toBeGreaterThan(100); // the cases do reach the threshold, so the comparison means something
  });
});
