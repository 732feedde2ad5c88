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
  /^(?:please\s+)?(?:create an account|sign ?(?:in|up)|log ?in|register|join)(?:\s+(?:or|and)\s+(?:create an account|sign ?(?:in|up)|log ?in|register))?(?:\s+(?:now|here))?\s+to\s+[^.!?]{3,60}[.!]?$/i;
/** A thread's counters: 'Replies 154', 'Views 26.2k', 'Last Reply 1 yr'. */
const THREAD_STAT = /^(?:replies|views|posts|likes|created|last reply|joined|reputation)\s*:?\s*[\d.,]+\s*[kmy]?\w*(?:\s+\S+)?$/i;
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

/** True for a short line that is page furniture: 'Advertisement', a bare URL, a dateline, a vote count. */
export function isFurniture(b: RawBlock): boolean {
  if (b.textChars > 90 || b.kind === 'code') return false;
  const t = b.text.trim();
  return FURNITURE.test(t) || BARE_URL.test(t) || ACCOUNT_PROMPT.test(t) || THREAD_STAT.test(t) || DATE_LINE.test(t) || ISO_TIME.test(t) || NUMBER.test(t);
}
