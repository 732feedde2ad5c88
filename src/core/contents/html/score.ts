/**
 * The main-content verdict, block by block. When one region of the page holds its text (an article,
 * a thread, a docs page) that region is the main content, trimmed of captions, teasers and stray
 * lines; when none does (landing pages, listings, product grids) every block outside the page chrome is.
 */
import type { ParentNode } from 'domhandler';
import type { RawBlock } from './blocks.js';
import { dropRelated, dropRepeats } from './refine.js';
import { ancestors, findCore, subtreeSums, widen } from './region.js';
import { proseChars } from './demote.js';
import { CHROME, SENTENCE, blockWeight, goodBad, isFurniture } from './weights.js';

/** What the page declares itself to be (Open Graph / schema.org), when it says. */
export type PageType = 'article' | 'forum' | null;

/** What the page says about itself that the verdict uses. */
export interface PageHints {
  declared: PageType;
}

/** The region must hold this share of the page's non-link content text, else the page is 'distributed'. */
const COVERAGE = 0.5;
/** ...a lower bar on a page that declares itself an article (its text is the article, however short). */
const ARTICLE_COVERAGE = 0.3;
/**
 * Below this share of running prose in its content text a page has no article to find (a listing, a
 * catalogue, a landing page of short pitches): all of its content blocks are main. On WCXB-dev the
 * bench's plateau runs from 0.3 to 0.35.
 */
const MIN_PROSE = 0.3;
/**
 * The picked blocks must also hold this share of all content text, links included: a region that
 * keeps less (an intro above a catalogue, one pitch on a landing page) is not what the page is,
 * unless it holds `PROSE_HELD` of the page's running prose in `MIN_PROSE_BLOCKS` or more paragraphs
 * (a news story among heavy teaser rails). On WCXB-dev the plateau runs from 0.25 to 0.4, and a
 * threshold chosen on either half of the pages gains on the other half too.
 */
const MIN_REGION_SHARE = 0.3;
const PROSE_HELD = 0.8;
const MIN_PROSE_BLOCKS = 3;
/** A block with this many characters of its own (non-link) text and sentence punctuation is prose. */
const PROSE_LEN = 150;
const PROSE_KINDS = new Set(['paragraph', 'quote', 'list']);

/**
 * True when comments are the content (a thread): on a declared forum when they hold a third of the
 * running text; on a declared article only when nothing else is there; otherwise when they hold most
 * of it and the rest is short (a question above its answers).
 */
function isThread(blocks: RawBlock[], declared: PageType): boolean {
  let comments = 0;
  let all = 0;
  for (const b of blocks) {
    if (CHROME.has(b.section)) continue;
    const p = proseChars(b);
    all += p;
    if (b.ctx.inComments) comments += p;
  }
  if (declared === 'forum') return comments > 0.3 * all;
  if (declared === 'article') return all - comments < 300 && comments > 0.6 * all;
  return comments > 0.6 * all && all - comments < 1500;
}

function isContent(b: RawBlock, thread: boolean): boolean {
  if (CHROME.has(b.section) || b.section === 'metadata' || isFurniture(b)) return false;
  return thread || !b.ctx.inComments;
}

/** Decides, block by block, what belongs to the main content of the page under `root`. */
export function selectMain(blocks: RawBlock[], root: ParentNode, hints: PageHints): boolean[] {
  const thread = isThread(blocks, hints.declared);
  const content = blocks.map((b) => isContent(b, thread));
  // a page of little running prose (a listing, a catalogue, a landing page) is read whole; a page
  // declaring itself an article keeps its region however short (a news story among teaser rails)
  const prosePage = thread || hints.declared === 'article' || proseShare(blocks, content) >= MIN_PROSE;
  const picked = (prosePage ? pickRegion(blocks, root, hints, thread, content) : null) ?? content;
  dropRelated(blocks, picked);
  dropRepeats(blocks, picked);
  return picked;
}

/** The share of the content blocks' text that is running prose (paragraphs of sentences). */
function proseShare(blocks: RawBlock[], content: boolean[]): number {
  let prose = 0;
  let all = 0;
  blocks.forEach((b, i) => {
    if (!content[i]) return;
    all += b.textChars;
    if (isProse(b)) prose += b.textChars - b.linkChars;
  });
  return all === 0 ? 1 : prose / all;
}

/** The article-like region's blocks, or null when the page has no dominant region. */
function pickRegion(
  blocks: RawBlock[],
  root: ParentNode,
  hints: PageHints,
  thread: boolean,
  content: boolean[],
): boolean[] | null {
  const weights = blocks.map((b) => blockWeight(b, thread));
  const chains = blocks.map((b) => ancestors(b, root));
  const sums = subtreeSums(
    chains,
    weights,
    blocks.map((b, i) => goodBad(b, content[i]!)),
  );
  const core = findCore(sums);
  if (!core || core.score <= 0) return null;
  const region = widen(core, sums, root, thread);
  const inRegion = chains.map((chain) => chain.some((el) => region.has(el)));
  const minShare = hints.declared === 'article' ? ARTICLE_COVERAGE : COVERAGE;
  if (coverage(blocks, content, inRegion, hints.declared !== 'article') < minShare) return null;
  const picked = blocks.map((b, i) => inRegion[i]! && content[i]! && keepInRegion(b, weights[i]!));
  const small = pickedShare(blocks, content, picked) < MIN_REGION_SHARE;
  if (small && !holdsProse(blocks, content, picked) && !isTheArticle(blocks, content, picked)) return null;
  // no paragraph, code or table in the region: the page has no running text to anchor on (a landing
  // page, a two-line notice), so it is read whole
  return picked.some((p, i) => p && anchors(blocks[i]!)) ? picked : null;
}

/** The share of all content text, links included, that the picked blocks hold. */
function pickedShare(blocks: RawBlock[], content: boolean[], picked: boolean[]): number {
  let inside = 0;
  let all = 0;
  blocks.forEach((b, i) => {
    if (!content[i]) return;
    all += b.textChars;
    if (picked[i]) inside += b.textChars;
  });
  return all === 0 ? 1 : inside / all;
}

/**
 * True when the picked blocks are the page's marked-up article: all inside `<article>` (or an
 * articleBody), which holds little else. The rest of the page is then teasers around a short story.
 */
function isTheArticle(blocks: RawBlock[], content: boolean[], picked: boolean[]): boolean {
  let inside = 0;
  let rest = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    if (picked[i] && !b.ctx.inArticle) return false;
    if (picked[i]) inside += b.textChars;
    else if (content[i] && b.ctx.inArticle) rest += b.textChars;
  }
  return inside > 0 && rest < inside;
}

/** True when the picked blocks hold most of the page's running prose, in several paragraphs. */
function holdsProse(blocks: RawBlock[], content: boolean[], picked: boolean[]): boolean {
  let inside = 0;
  let all = 0;
  let paragraphs = 0;
  blocks.forEach((b, i) => {
    if (!content[i] || !isProse(b)) return;
    all += b.textChars;
    if (picked[i]) {
      inside += b.textChars;
      paragraphs++;
    }
  });
  return paragraphs >= MIN_PROSE_BLOCKS && inside >= PROSE_HELD * all;
}

/** A block of running prose: a paragraph, quote or list item with `PROSE_LEN` characters of its own text. */
function isProse(b: RawBlock): boolean {
  return PROSE_KINDS.has(b.kind) && b.textChars - b.linkChars >= PROSE_LEN && SENTENCE.test(b.text);
}

/** A block a region can be anchored on: prose, code or a data table. */
function anchors(b: RawBlock): boolean {
  return b.kind === 'code' || b.kind === 'table' || isProse(b);
}

/** The share of the page's non-link content text that lies inside the region. */
function coverage(blocks: RawBlock[], content: boolean[], inRegion: boolean[], cards: boolean): number {
  let inside = 0;
  let all = 0;
  blocks.forEach((b, i) => {
    if (!content[i]) return;
    // a card's description is link text only because the whole card is a link: it is text of a
    // listing, but on a page declaring itself an article such cards are teasers of other pages
    const card = cards && b.inLink && b.kind === 'paragraph' && b.textChars >= 100;
    const t = card ? b.textChars : Math.max(0, b.textChars - b.linkChars);
    all += t;
    if (inRegion[i]) inside += t;
  });
  return all === 0 ? 1 : inside / all;
}

/** Inside an article region: no captions or photo credits (they stay in `standard`), no link lists. */
function keepInRegion(b: RawBlock, weight: number): boolean {
  if (b.kind === 'figure' || b.ctx.inCaption) return false;
  if (b.kind === 'heading' || b.kind === 'code' || b.kind === 'rule') return true;
  return weight > -20 || b.textChars - b.linkChars > 200;
}
