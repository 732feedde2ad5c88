import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { evidenceOf } from '../../../src/core/contents/page.js';
import { mainText } from '../../../src/core/contents/render.js';
import {
  companyEntity,
  employeeCount,
  foundedYear,
  workforceTotal,
} from '../../../src/core/search/classify/entities.js';
import { classifyDocument } from '../../../src/core/search/classify/index.js';

/** A page as pages.service stores it: extracted, then its description and evidence in `metadata`. */
function docFrom(html: string, url: string) {
  const page = extractHtml(html, url);
  const metadata = { description: page.description, ...evidenceOf(page) };
  return { url: page.url, title: page.title, text: mainText(page), metadata, publishedDate: page.publishedDate };
}

const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const body = `<body><main><h1>About Acme</h1><p>Acme builds industrial anvils and rocket skates for professionals.
  Our customers range from coyotes to construction firms, and our team ships worldwide.</p></main></body>`;

describe('organisation evidence in page metadata', () => {
  it('keeps the subject Organization trimmed to the entity fields, and the types', () => {
    const org = {
      '@context': 'https://schema.org',
      '@type': 'Corporation',
      name: 'Acme Corporation',
      url: 'https://www.acme.example/',
      logo: 'https://www.acme.example/logo.png',
      foundingDate: '1949-09-17',
      description: 'Maker of anvils.',
      numberOfEmployees: { '@type': 'QuantitativeValue', value: 1200 },
      address: { '@type': 'PostalAddress', streetAddress: '1 Canyon Rd', addressLocality: 'Phoenix', postalCode: '85001', addressCountry: 'US' }, // prettier-ignore
      sameAs: ['https://twitter.com/acme'],
    };
    const page = extractHtml(`<html><head><title>About - Acme</title>${ld(org)}</head>${body}</html>`, 'https://www.acme.example/about'); // prettier-ignore
    expect(page.ldTypes).toEqual(['Corporation', 'QuantitativeValue', 'PostalAddress']);
    expect(page.ldSubjectTypes).toEqual(['Corporation']);
    expect(page.organization).toEqual({
      types: ['Corporation'],
      subject: true,
      name: 'Acme Corporation',
      url: 'https://www.acme.example/',
      description: 'Maker of anvils.',
      foundingDate: '1949-09-17',
      numberOfEmployees: { value: 1200 },
      address: { streetAddress: '1 Canyon Rd', addressLocality: 'Phoenix', postalCode: '85001', addressCountry: 'US' },
    });
  });

  it('reads microdata organisations, nested address included', () => {
    const html = `<html><body><div itemscope itemtype="https://schema.org/LocalBusiness">
      <h1 itemprop="name">Rosa's Bakery</h1><p itemprop="description">Sourdough since 1987.</p>
      <meta itemprop="foundingDate" content="1987">
      <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress">
        <span itemprop="streetAddress">12 Mill Lane</span>, <span itemprop="addressLocality">Bristol</span>
        <span itemprop="postalCode">BS1 4DJ</span> <span itemprop="addressCountry">GB</span></div>
      <p>We bake every morning from four. Our customers queue round the block.</p></div></body></html>`;
    const page = extractHtml(html, 'https://rosasbakery.example/');
    expect(page.organization).toMatchObject({
      types: ['LocalBusiness'],
      subject: true,
      name: "Rosa's Bakery",
      foundingDate: '1987',
      address: {
        streetAddress: '12 Mill Lane',
        addressLocality: 'Bristol',
        postalCode: 'BS1 4DJ',
        addressCountry: 'GB',
      },
    });
  });

  it('marks a publisher Organization as not the subject of an article, and a listing of several as none', () => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'Article', '@id': '#a', headline: 'Ten anvil tips', publisher: { '@id': '#org' }, author: { '@id': '#p' } }, // prettier-ignore
        { '@type': 'Organization', '@id': '#org', name: 'Acme' },
        { '@type': 'Person', '@id': '#p', name: 'Wile E. Coyote' },
      ],
    };
    const article = extractHtml(`<html><head>${ld(graph)}</head>${body}</html>`, 'https://acme.example/blog/tips');
    expect(article.organization).toMatchObject({ name: 'Acme', subject: false });
    expect(article.ldSubjectTypes).toEqual(['Article']);
    expect(article.publisherType).toBe('Organization');

    // a site-wide Organization block beside an unlinked article is its publisher
    const separate = `${ld({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Acme' })}${ld({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'Tips' })}`; // prettier-ignore
    expect(extractHtml(`<html><head>${separate}</head>${body}</html>`, 'https://acme.example/tips').organization).toMatchObject({ subject: false }); // prettier-ignore

    const listing = [1, 2, 3].map((n) => ({ '@context': 'https://schema.org', '@type': 'Restaurant', name: `Diner ${n}` })); // prettier-ignore
    const page = extractHtml(`<html><head>${listing.map(ld).join('')}</head>${body}</html>`, 'https://guide.example/diners'); // prettier-ignore
    expect(page.organization).toBeUndefined();
  });

  it('adds nothing to a page without structured data', () => {
    const page = extractHtml(`<html><head><title>Plain</title></head>${body}</html>`, 'https://plain.example/');
    expect(evidenceOf(page)).toEqual({});
  });
});

describe('company entity parsing', () => {
  it('reads founding years, employee counts and ranges', () => {
    expect(foundedYear('1998-09-04')).toBe(1998);
    expect(foundedYear('September 2004')).toBe(2004);
    expect(foundedYear('sometime')).toBeNull();
    expect(employeeCount('1,200')).toBe(1200);
    expect(employeeCount('51-200')).toBe(126);
    expect(employeeCount('about 10k')).toBe(10000);
    expect(employeeCount('many')).toBeNull();
    expect(workforceTotal({ minValue: 100, maxValue: 300 })).toBe(200);
    expect(workforceTotal({ minValue: '5000' })).toBe(5000);
    expect(workforceTotal(42)).toBe(42);
  });

  it('builds the spec shape with nulls for what the page does not say', () => {
    const entity = companyEntity({ types: ['Organization'], subject: true, name: 'Initech' }, 'https://www.initech.example/about'); // prettier-ignore
    expect(entity).toEqual({
      id: 'company:initech.example',
      type: 'company',
      version: 1,
      properties: { name: 'Initech', foundedYear: null, description: null, workforce: null, headquarters: null },
    });
  });

  it('takes a string address whole and ids a directory entry by its page when the org has no URL', () => {
    const org = { types: ['Dentist'], subject: true, name: 'Bright Smiles', address: '4 High St, Leeds LS1 1AA' };
    const entity = companyEntity(org, 'https://www.directory.example/dentists/bright-smiles/');
    expect(entity.id).toBe('company:directory.example/dentists/bright-smiles');
    expect(entity.properties.headquarters).toEqual({ address: '4 High St, Leeds LS1 1AA', city: null, postalCode: null }); // prettier-ignore
  });
});

describe('classifyDocument entities', () => {
  it('gives a company page its entity, from HTML through the stored metadata', () => {
    const org = {
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: 'Globex',
      url: 'https://globex.example',
      foundingDate: '1989',
      numberOfEmployees: { '@type': 'QuantitativeValue', minValue: 500, maxValue: 1000 },
      address: { '@type': 'PostalAddress', streetAddress: '1 Globex Way', addressLocality: 'Cypress Creek', postalCode: '90210', addressCountry: { '@type': 'Country', name: 'US' } }, // prettier-ignore
    };
    const html = `<html><head><title>Globex | About us</title><meta name="description" content="Globex makes everything.">${ld(org)}</head>${body}</html>`; // prettier-ignore
    const result = classifyDocument(JSON.parse(JSON.stringify(docFrom(html, 'https://globex.example/about-us'))));
    expect(result.categories).toContain('company');
    expect(result.entities).toEqual([
      {
        id: 'company:globex.example',
        type: 'company',
        version: 1,
        properties: {
          name: 'Globex',
          foundedYear: 1989,
          description: 'Globex makes everything.',
          workforce: { total: 750 },
          headquarters: { address: '1 Globex Way', city: 'Cypress Creek', postalCode: '90210', country: 'US' },
        },
      },
    ]);
  });

  it('gives an article published by an organisation no entity', () => {
    const ldArticle = {
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: 'Globex shares fall',
      publisher: { '@type': 'Organization', name: 'Daily Planet', url: 'https://dailyplanet.example' },
    };
    const html = `<html><head>${ld(ldArticle)}</head><body><article><h1>Globex shares fall</h1><p>Shares of Globex fell sharply on Tuesday after the company missed its forecasts.</p></article></body></html>`; // prettier-ignore
    const result = classifyDocument(docFrom(html, 'https://dailyplanet.example/2024/05/12/globex-shares'));
    expect(result.categories).toEqual(['news']);
    expect(result.entities).toEqual([]);
  });
});
