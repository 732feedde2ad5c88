/**
 * Per-block signals the main-content verdict adds up: a weight (prose counts for, link lists, short UI
 * strings and chrome count against), how much of a block reads like content or like boilerplate, and
 * the lines that are page furniture wherever they appear.
 */
import type { SectionKind } from '../page.js';
import type { RawBlock } from './blocks.js';

/** Sections that are page chrome: never main content. */
export const CHROME = new Set<SectionKind>(['navigation', 'header', 'footer', 'sidebar', 'banner']);

/** Punctuation that marks running text rather than a label. */
export const SENTENCE = /[.!?。！？:;,]/;

/** The weight of one block in the subtree sums; comments count only in a thread. */
export function blockWeight(b: RawBlock, thread: boolean): number {
  const len = b.textChars;
  if (len === 0) return 0;
  const links = Math.min(b.linkChars, len);
  if (CHROME.has(b.section)) return -(len * (b.strong ? 1.5 : 1)) - 10;
  if (b.section === 'metadata') return -Math.min(len, 80) * 0.25;
  if (b.kind === 'heading') return links > len / 2 ? -links * 0.5 : 0;
  if (b.kind === 'code') return len;
  const content = len - links;
  // a sentence with a link in it is text; a line that is mostly a link is a link list entry
  const penalty = isLinkLine(b) ? 2 : 0.5;
  let w = b.kind === 'table' ? content * 0.8 - links : content - penalty * links;
  if (len < 40 && !SENTENCE.test(b.text)) w -= 15;
  if (b.ctx.inComments && !thread) w = Math.min(w, 0);
  return w;
}

/** True for a block that is mostly link text with little of its own (a menu entry, 'Read: ...'). */
export function isLinkLine(b: RawBlock): boolean {
  const own = b.textChars - b.linkChars;
  return b.linkChars > 0.5 * b.textChars && (own < 40 || b.linkChars > 0.8 * b.textChars);
}

/** How many characters of a content block read like content and how many like boilerplate. */
export function goodBad(b: RawBlock, content: boolean): [number, number] {
  if (!content) return [0, 0];
  const len = b.textChars;
  const links = Math.min(len, b.linkChars);
  if (b.kind === 'heading') return links > len / 2 ? [0, len] : [len, 0];
  if (b.kind === 'code') return [len, 0];
  // a table is dense: three short spec rows say as much as a paragraph
  if (b.kind === 'table') return [3 * (len - links), links];
  if (len < 25 && !SENTENCE.test(b.text)) return [0, len];
  return [len - links, links];
}

/** Lines that are page furniture wherever they appear (matched on the whole, trimmed text). */
const FURNITURE =
  /^(?:advertisements?|ad|sponsored(?: content)?|caption|close|loading\W*|skip to (?:main )?content|back to top|scroll to top|toggle navigation|(?:open|close) menu|share(?: this(?: article| story| post)?)?|print(?: this(?: article| page)?)?|e-?mail|comments?|reply|copy link|photo|image|video|advertisement - continue reading below|add to (?:cart|bag|basket|wish ?list)|(?:in|out of) stock|quantity|qty:?|size (?:guide|chart)|select (?:a )?size|choose an option|write a review|buy (?:it )?now|sold out|add to favou?rites|notify me)$/i;
const BARE_URL = /^(?:https?:\/\/|www\.)\S+$/i;
/** An account prompt: 'Create an account or sign in to comment', 'Please log in to reply'. */
const ACCOUNT_PROMPT =
  /^(?:please\s+|you (?:must|need to|have to) (?:be )?)?(?:create an account|logged in|sign ?(?:in|up)|log ?in|register|join)(?:\s+(?:or|and)\s+(?:create an account|sign ?(?:in|up)|log ?in|register))?(?:\s+(?:now|here))?\s+to\s+[^.!?]{3,60}[.!]?$/i;
/** Placeholder text a template left in: 'Lorem ipsum dolor sit amet...'. */
const PLACEHOLDER = /^lorem ipsum\b/i;
/** An affiliate disclosure: 'If you buy something through our links, we may earn a commission.' */
const DISCLOSURE =
  /\bwe (?:may|might|could) (?:earn|receive|get|be paid)\b[^.]{0,40}\b(?:commission|compensation)|\bearn from qualifying purchases|\b(?:contains?|includes?|uses?) affiliate links\b/i;
/** A row of share buttons: 'Facebook X Bluesky LinkedIn Reddit WhatsApp E-mail'. */
const SOCIAL_ROW =
  /^(?:(?:share (?:on|via|to)\s+)?(?:facebook|x|\(?twitter\)?|bluesky|threads|linkedin|reddit|pinterest|tumblr|whatsapp|telegram|e-?mail|copy link|messenger|flipboard|mastodon|print|sms|line|vk|xing)[\s,|·•]*){3,}$/i;
/** Forum software lines: 'Powered by vBulletin®', 'You may not post replies', 'Thread starter ...'. */
const FORUM_CHROME =
  /^(?:powered by\s.{2,80}|you may(?: not)? (?:post|edit|reply|vote)\b.{0,40}|thread starter\s.{1,80}|(?:asked|modified|viewed|active)\s+(?:\d+|an?|one)\s+\w+(?:,\s*\d+\s+\w+)?\s+ago|advertisement\s*[-–:].{0,60})$/i;
/** A token of machine ids (UUIDs, long hex runs): a block made of them is obfuscation, not text. */
const ID_TOKEN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}|[0-9a-f]{16,}/i;
/** A shop's promotion line: 'Free standard shipping on orders $60 CAD+', 'Save 30% off your first order'. */
const PROMO =
  /^(?:(?:score |enjoy |get )?free (?:standard |express |fast |uk |us )?(?:shipping|delivery|returns)\b|save (?:up to )?(?:\d|\$|€|£)[^.]{0,60}(?:first order|with|on|when)\b|[^.]{0,40}\bwhile supplies last\b|[^.]{0,60}\b(?:price|prices): (?:low to high|high to low)\b)/i;
/** Language and country pickers: endonyms a site lists to switch its locale. */
const LOCALES = new Set(
  (
    'afrikaans aragonés العربية azərbaycanca български বাংলা bosanski català čeština cymraeg dansk deutsch eesti ' +
    'ελληνικά english español esperanto euskara فارسی français gaeilge galego 한국어 hrvatski bahasa indonesia ' +
    'italiano עברית қазақша latviešu lietuvių magyar македонски bahasa melayu nederlands 日本語 norsk polski português ' +
    'română русский shqip slovenčina slovenščina српски srpski suomi svenska தமிழ் ไทย türkçe українська اردو ' +
    'tiếng việt 中文 österreich belgië belgique україна danmark suomi deutschland sverige schweiz'
  ).split(' '),
);
/** A cookie notice: 'These cookies are necessary for the website to function...'. */
const COOKIES =
  /^(?:these|this site uses|we use|our (?:site|website) uses|by using this (?:site|website)[^.]{0,40}) cookies\b/i;
/** Docs-site chrome: a MediaWiki 'Retrieved from', DocBook's 'Prev | Up | Home | Next', page-rating prompts. */
const DOCS_CHROME =
  /^(?:retrieved from ["“]https?:\/\/\S+["”]|.{0,80}\bprev(?:ious)?\s*\|\s*up\b.{0,120}\bnext\b.{0,60}|rate this (?:page|article)|was this (?:page|article|information) helpful\??|(?:is|was) this (?:page|article) useful\??|help us improve this (?:page|article))$/i;
/** A thread's counters: 'Replies 154', 'Views 26.2k', 'Last Reply 1 yr'. */
const THREAD_STAT =
  /^(?:replies|views|posts|likes|created|last reply|joined|reputation)\s*:?\s*[\d.,]+\s*[kmy]?\w*(?:\s+\S+)?$/i;
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const CLOCK = '[\\d:.]+\\s*(?:a\\.?m\\.?|p\\.?m\\.?)?\\s*(?:[A-Z]{2,4})?';
const DAY = '(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\\.?,?\\s*';
const DATE = `(?:${MONTH}\\s+\\d{1,2},?\\s+\\d{4}|\\d{1,2}\\s+${MONTH},?\\s+\\d{4}|\\d{4}-\\d{2}-\\d{2}|\\d{1,2}[./]\\d{1,2}[./]\\d{2,4})`;
/** A dateline on its own: 'Updated 5:27 am CST, Wednesday, November 20, 2019'. */
const DATE_LINE = new RegExp(
  `^(?:(?:updated|published|posted|last updated|modified)\\s*:?\\s*)?(?:${CLOCK},?\\s*)?(?:${DAY})?${DATE}(?:,?\\s*(?:at\\s*)?${CLOCK})?$`,
  'i',
);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$/;
const NUMBER = /^[-+]?\d+$/;

/** True when most of the text is machine ids (eBay-style obfuscated spans). */
function isIdSoup(text: string): boolean {
  if (text.length < 40) return false;
  let ids = 0;
  for (const token of text.split(/\s+/)) if (ID_TOKEN.test(token)) ids += token.length;
  return ids > 0.5 * text.length;
}

/** True when a block names eight or more locales and little else: a language or country picker. */
function isLocalePicker(text: string): boolean {
  const words = text.toLowerCase().split(/\s+/);
  if (words.length < 8) return false;
  const hits = words.filter((w) => LOCALES.has(w)).length;
  return hits >= 8 && hits >= 0.5 * words.length;
}

/** True for a short line that is page furniture: 'Advertisement', a bare URL, a dateline, a vote count. */
export function isFurniture(b: RawBlock): boolean {
  if (b.kind === 'code') return false;
  if (PLACEHOLDER.test(b.text.trimStart())) return true;
  if (b.textChars <= 400 && b.kind === 'paragraph' && DISCLOSURE.test(b.text)) return true;
  if (isIdSoup(b.text) || isLocalePicker(b.text)) return true;
  if (b.textChars <= 200 && PROMO.test(b.text.trim())) return true;
  if (b.textChars <= 800 && COOKIES.test(b.text.trim())) return true;
  if (b.textChars <= 300 && DOCS_CHROME.test(b.text.trim())) return true;
  if (b.textChars > 120) return false;
  const t = b.text.trim();
  return (
    FURNITURE.test(t) ||
    BARE_URL.test(t) ||
    ACCOUNT_PROMPT.test(t) ||
    THREAD_STAT.test(t) ||
    FORUM_CHROME.test(t) ||
    SOCIAL_ROW.test(t) ||
    DATE_LINE.test(t) ||
    ISO_TIME.test(t) ||
    NUMBER.test(t)
  );
}
