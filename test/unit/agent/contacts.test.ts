/** Contact evidence: mailto: and tel: links of a page, and the agent's check of contact fields against pages. */
import { describe, expect, it } from 'vitest';
import { checkContacts } from '../../../src/core/agent/contacts.js';
import { extractHtml } from '../../../src/core/contents/html/extract.js';

const HTML = `<html><head><title>Acme support</title></head><body><main>
  <h1>Contact Acme</h1><p>Write to <a href="mailto:Support@Acme.example?subject=hi">our support team</a> or
  call <a href="tel:+1-555-010-0999">the front desk</a>. Sales: <a href="mailto:sales@acme.example,ceo@acme.example">email us</a>.</p>
  <p><a href="mailto:not-an-address">broken</a> <a href="tel:12">too short</a></p>
</main></body></html>`;

describe('contact links of a page', () => {
  it('records the addresses of mailto: and tel: links, valid ones only', () => {
    const page = extractHtml(HTML, 'https://acme.example/contact');
    expect(page.contacts).toEqual({
      emails: ['support@acme.example', 'sales@acme.example', 'ceo@acme.example'],
      phones: ['+1-555-010-0999'],
    });
    expect(extractHtml('<p>No links</p>', 'https://acme.example/').contacts).toBeUndefined();
  });

  it("records an organisation's structured-data email and telephone", () => {
    const ld = { '@context': 'https://schema.org', '@type': 'Organization', name: 'Acme', email: 'mailto:hello@acme.example', telephone: '+1 555 010 0777' }; // prettier-ignore
    const page = extractHtml(`<html><head><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>Acme</h1><p>About us.</p></main></body></html>`, 'https://acme.example/about'); // prettier-ignore
    expect(page.organization).toMatchObject({
      name: 'Acme',
      email: 'hello@acme.example',
      telephone: '+1 555 010 0777',
    });
  });
});

describe('checking contact fields against pages', () => {
  const schema = {
    type: 'object',
    properties: {
      people: {
        type: 'array',
        items: {
          type: 'object',
          properties: { email: { type: ['string', 'null'], format: 'email' }, phone: { anyOf: [{ type: 'string', format: 'phone' }, { type: 'null' }] } }, // prettier-ignore
        },
      },
      homepage: { type: ['string', 'null'], format: 'uri' },
    },
  };
  it('keeps values a page shows (by text or link) and nulls the rest, counting what it kept', () => {
    const pages = ['Reach Ada at ADA@example.org or +44 20 7946 0958.', 'support@acme.example\n+1-555-010-0999'];
    const checked = checkContacts(
      {
        people: [
          { email: 'ada@example.org', phone: '(020) 7946-0958' },
          { email: 'invented@example.org', phone: '+1 555 010 0999' },
        ],
        homepage: 'https://www.ada.dev/',
      },
      schema,
      pages,
    );
    expect(checked.value).toEqual({
      people: [
        { email: 'ada@example.org', phone: '(020) 7946-0958' },
        { email: null, phone: '+1 555 010 0999' },
      ],
      homepage: null,
    });
    expect(checked.kept).toEqual({ email: 1, phone: 2, uri: 0 });
    expect(checked.dropped).toEqual(['people[1].email', 'homepage']);
  });
});
