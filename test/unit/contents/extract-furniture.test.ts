// Lines that are page furniture wherever they stand (sign-in prompts, share rows, placeholder text,
// affiliate and cookie notices, locale pickers, shop promotions, forum software lines), lines printed
// twice for hover effects, and CMS state classes that must not read as datelines.
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { mainText } from '../../../src/core/contents/render.js';

const para = (topic: string) =>
  `${topic} is explained here in enough detail to read like running text, with commas, clauses and a full stop. ` +
  `Readers who skim it still learn why ${topic.toLowerCase()} matters, how it behaves, and what to watch for.`;

const article = (extra: string) =>
  `<!doctype html><html><head><title>T</title></head><body><main><article><h1>Tides</h1>` +
  `<p>${para('The tide')}</p><p>${para('Tidal range')}</p>${extra}<p>${para('A neap tide')}</p>` +
  `</article></main></body></html>`;

const textOf = (extra: string) => mainText(extractHtml(article(extra), 'https://example.org/tides'));

describe('extractHtml: furniture lines', () => {
  it.each([
    ['an account prompt', 'Create an account or sign in to comment'],
    ['a must-log-in prompt', 'You must be logged in to reply to this topic.'],
    ['thread counters', 'Replies 154'],
    ['a row of share buttons', 'Facebook X Bluesky LinkedIn Reddit WhatsApp Email'],
    ['forum software', 'Powered by vBulletin® Version 3.8.11'],
    ['a forum permission line', 'You may not post attachments'],
    ['placeholder text', 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.'],
    [
      'an affiliate disclosure',
      'This post contains affiliate links. If you buy something through them, we may earn a commission.',
    ],
    ['a cookie notice', 'These cookies are necessary for the website to function and cannot be switched off.'],
    ['a shop promotion', 'Free standard shipping on orders $60 CAD+'],
    ['a language picker', 'Afrikaans العربية Azərbaycanca Български Català Čeština Deutsch Español Français Italiano'],
    ['a MediaWiki footer', 'Retrieved from "https://wiki.example.org/index.php?title=Tides&oldid=1"'],
    ['obfuscated ids', 'H7868484a-db29-4baf-990e-8b645ccb1899S0b6874d2-ba79-4045-a400-556140cd4bbf'],
  ])('drops %s', (_, line) => {
    const text = textOf(`<p>${line}</p>`);
    expect(text).toContain('Tidal range is explained');
    expect(text).toContain('A neap tide is explained');
    expect(text).not.toContain(line.slice(0, 20));
  });

  it('keeps sentences that merely mention those words', () => {
    const line = 'Sailors log in to the harbour office to read the tide tables before they share a mooring.';
    expect(textOf(`<p>${line}</p>`)).toContain(line);
  });

  it('keeps one copy of a line printed twice', () => {
    const text = textOf('<p><span>Talk to an expert</span><span>Talk to an expert</span></p>');
    expect(text).toContain('Talk to an expert');
    expect(text).not.toContain('Talk to an expertTalk to an expert');
  });

  it("does not read Drupal's paragraph-published class as a dateline", () => {
    const html = article(`<div class="paragraph paragraph-published"><p>${para('A spring tide')}</p></div>`);
    expect(mainText(extractHtml(html, 'https://example.org/tides'))).toContain('A spring tide is explained');
  });
});
