// Page chrome that holds much of a page's text: legal fine print in the site footer, disclaimer boxes.
// A marketing or product page has little prose of its own, so such chrome can outweigh it; it stays out.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { mainText } from '../../../src/core/contents/render.js';

const sentence = (topic: string) => `${topic} is described in one short sentence that reads like copy.`;
const legal = (n: number) =>
  `<li>${n}. Financing is available to qualified customers, subject to credit approval and credit limit, ` +
  `and requires you to select the monthly installment option at checkout; terms and conditions apply, see ` +
  `the agreement for details, rates and fees, which vary by region and may change without notice.</li>`;
const finePrint = Array.from({ length: 8 }, (_, i) => legal(i + 1)).join('');

const page = (main: string, after: string) =>
  `<!doctype html><html><head><title>Tablet</title></head><body><main>${main}</main>${after}</body></html>`;
const MAIN = `<h1>The tablet</h1><h2>Thin. Light. Fast.</h2><p>${sentence('The display')}</p>
  <h2>All-day battery</h2><p>${sentence('The battery')}</p><h2>Pro cameras</h2><p>${sentence('The camera')}</p>`;

describe('extractHtml: fine print in the chrome', () => {
  it('keeps a site footer (by role) out, even when its fine print outweighs the page text', () => {
    const html = page(
      MAIN,
      `<footer role="contentinfo"><section class="sosumi"><ul>${finePrint}</ul></section></footer>`,
    );
    const text = mainText(extractHtml(html, 'https://example.com/tablet'));
    expect(text).toContain('The battery is described');
    expect(text).not.toContain('Financing is available');
  });

  it('reads a disclaimer or legal box as footer', () => {
    const prose = ['keyboard', 'pen', 'case', 'charger', 'stand']
      .map((t) => `<p>${sentence(`The ${t}`)} ${sentence(`Its ${t} warranty`)} ${sentence(`A ${t} upgrade`)}</p>`)
      .join('');
    const html = page(`${MAIN}${prose}<div class="common-bottom-disclaimer"><ol>${legal(1)}${legal(2)}</ol></div>`, '');
    const page_ = extractHtml(html, 'https://example.com/tablet');
    expect(mainText(page_)).toContain('The camera is described');
    expect(mainText(page_)).not.toContain('Financing is available');
    expect(page_.blocks.find((b) => b.text.includes('Financing'))?.section).toBe('footer');
  });

  it('still reads a page whose only text sits in a footer element', () => {
    const body = Array.from({ length: 8 }, (_, i) => `<p>${sentence(`Part ${i}`)} ${legal(i)}</p>`).join('');
    const html = `<!doctype html><html><body><div class="page"><footer>${body}</footer></div></body></html>`;
    expect(mainText(extractHtml(html, 'https://example.com/odd'))).toContain('Part 2 is described');
  });
});

describe('extractHtml: class names that do not mean chrome', () => {
  it("reads a site's 'promo' components (content-management cards) as content", () => {
    const promo = (name: string) =>
      `<div class="cmp-promo__services"><h3>${name}</h3><p>${sentence(name)} ${sentence(`Our ${name} team`)}</p></div>`;
    const cards = ['Audit', 'Tax', 'Consulting', 'Risk advisory', 'Legal services'].map(promo).join('');
    // the page's own prose outweighs the cards, so no demotion rescues them: the class must not mean banner
    const intro = ['Every challenge', 'Our people', 'Each engagement', 'The firm', 'Our clients', 'Growth']
      .map((t) => `<p>${sentence(t)} ${sentence(`${t} again`)} ${sentence(`${t} at last`)}</p>`)
      .join('');
    const html = page(`<h1>Our services</h1>${intro}${cards}`, '');
    const text = mainText(extractHtml(html, 'https://example.com/services'));
    expect(text).toContain('Risk advisory is described');
    expect(text).toContain('Our Legal services team is described');
  });
});
