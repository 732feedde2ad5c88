// Boxes of other pages' teasers under a 'Related articles' heading, and product-review widgets: not
// main content, however long their text, while the article text around them stays.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { mainText } from '../../../src/core/contents/render.js';

const para = (topic: string) =>
  `${topic} is explained here in enough detail to read like running text, with commas, clauses and a full stop. ` +
  `Readers who skim it still learn why ${topic.toLowerCase()} matters, how it behaves, and what to watch for.`;

const page = (body: string) =>
  `<!doctype html><html><head><title>T</title></head><body><main>${body}</main>` +
  `<footer><p>© 2024 Example.</p></footer></body></html>`;

describe('extractHtml: related-article boxes', () => {
  it('drops a teaser box after the article, long teasers included', () => {
    const html = page(`<article><h1>Tides</h1><p>${para('The tide')}</p><p>${para('Tidal range')}</p>
      <div class="more"><h3>You may also like...</h3><p>${para('A salty sea')}</p><p>${para('A rogue wave')}</p></div>
      </article>`);
    const text = mainText(extractHtml(html, 'https://example.org/tides'));
    expect(text).toContain('Tidal range is explained');
    expect(text).not.toContain('You may also like');
    expect(text).not.toContain('A salty sea');
    expect(text).not.toContain('A rogue wave');
  });

  it('keeps the article text that follows a related box in the middle of it', () => {
    const html = page(`<article><h1>Tides</h1><p>${para('The tide')}</p>
      <div class="inline-box"><h3>Related articles</h3><ul><li><a href="/a">Why the sea is salty</a></li></ul></div>
      <p>${para('A spring tide')}</p><p>${para('A neap tide')}</p></article>`);
    const text = mainText(extractHtml(html, 'https://example.org/tides'));
    expect(text).not.toContain('Related articles');
    expect(text).toContain('A spring tide is explained');
    expect(text).toContain('A neap tide is explained');
  });

  it('does not read an ordinary section heading as a related box', () => {
    const html = page(`<article><h1>Tides</h1><p>${para('The tide')}</p>
      <section><h2>Moon and sun</h2><p>${para('The pull of the moon')}</p></section></article>`);
    const text = mainText(extractHtml(html, 'https://example.org/tides'));
    expect(text).toContain('Moon and sun');
    expect(text).toContain('The pull of the moon is explained');
  });
});

describe('extractHtml: product reviews', () => {
  // the description outweighs the reviews, so the page is not read as a thread of comments
  it('leaves a customer-review widget out of a product page', () => {
    const html =
      page(`<h1>Trail shoe</h1><p>${para('The trail shoe')}</p><p>${para('The sole')}</p><p>${para('The lacing')}</p>
      <div class="product-reviews-content"><div class="customer-review"><p>${para('My own pair')}</p></div>
      <div class="customer-review"><p>${para('A second pair')}</p></div></div>`);
    const text = mainText(extractHtml(html, 'https://example.org/shoe'));
    expect(text).toContain('The trail shoe is explained');
    expect(text).not.toContain('My own pair');
    expect(text).not.toContain('A second pair');
  });
});

describe('extractHtml: a listing of linked cards', () => {
  it('keeps the card descriptions next to a short intro', () => {
    const card = (name: string) =>
      `<a class="card" href="/p/${name.toLowerCase()}"><h3>${name}</h3><p>${para(name)}</p></a>`;
    const html = page(`<h1>Programs</h1><div class="intro"><p>${para('Our programs')}</p></div>
      <div class="grid">${card('Biotechnology')}${card('Design')}${card('Leadership')}</div>`);
    const text = mainText(extractHtml(html, 'https://example.org/programs'));
    expect(text).toContain('Our programs is explained');
    expect(text).toContain('Biotechnology is explained');
    expect(text).toContain('Leadership is explained');
  });
});

describe('extractHtml: a page of little running prose', () => {
  const card = (name: string, n: number) =>
    `<div class="recipe-card"><h3><a href="/r/${n}">${name}</a></h3><p>${n} reviews / 4.${n} average</p>` +
    `<p>Ready in ${n * 5} minutes</p></div>`;
  const names = ['Crispy tofu', 'Chicken skewers', 'Salmon bowl', 'Smashed potatoes', 'Broccoli', 'Beef skewers'];
  // twelve items: their short lines far outweigh the one paragraph of prose
  const cards = [...names, ...names.map((n) => `${n} II`)].map((name, i) => card(name, i + 2)).join('');

  it('reads a listing whole: the intro and every item, not only the intro paragraph', () => {
    const html = page(`<h1>Air fryer recipes</h1><div class="intro"><p>${para('The air fryer')}</p></div>
      <h2>All recipes</h2><div class="grid">${cards}</div>`);
    const text = mainText(extractHtml(html, 'https://example.org/recipes/air-fryer'));
    expect(text).toContain('The air fryer is explained');
    expect(text).toContain('Chicken skewers');
    expect(text).toContain('7 reviews / 4.7 average');
  });

  it('keeps a declared article to its text however short, next to a rail of teasers', () => {
    // thirty teasers: a linked headline and a section label each, far more text than the story's
    const teasers = Array.from(
      { length: 30 },
      (_, i) =>
        `<div class="teaser"><h3><a href="/news/${i}">Headline number ${i} of the day</a></h3><p>World</p></div>`,
    ).join('');
    const html = page(
      `<article><h1>Short story</h1><p>${para('The event')}</p></article><section>${teasers}</section>`,
    ).replace('<title>', '<meta property="og:type" content="article"><title>');
    const text = mainText(extractHtml(html, 'https://example.org/news/short-story'));
    expect(text).toContain('The event is explained');
    expect(text).not.toContain('Headline number');
  });

  it('reads a listing whole when it declares itself an article but its intro holds little of the page', () => {
    // recipe sites mark their listings up as articles: one intro paragraph above thirty linked recipes
    const recipes = Array.from(
      { length: 30 },
      (_, i) => `<p><a href="/r/${i}">Tomato sauce recipe number ${i}</a></p>`,
    );
    const html = page(
      `<h1>Tomato sauce recipes</h1><p>${para('Tomato sauce')}</p><div class="cards">${recipes.join('')}</div>`,
    ).replace('<title>', '<meta property="og:type" content="article"><title>');
    const text = mainText(extractHtml(html, 'https://example.org/tomato-sauce-recipes'));
    expect(text).toContain('Tomato sauce is explained');
    expect(text).toContain('Tomato sauce recipe number 7');
  });
});
