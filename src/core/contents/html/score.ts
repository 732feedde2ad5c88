/**
 * The main-content verdict. Each block gets a weight (positive for prose-like text, negative for
 * link lists, short UI strings and page chrome); the element whose subtree has the largest total wins,
 * siblings that hold substantial content of their own are merged in, and blocks of that region that
 * are chrome or link lists are dropped again.
 */
import type { Element, ParentNode } from 'domhandler';
import type { RawBlock } from './blocks.js';
import { proseChars } from './sections.js';

const CHROME = new Set(['navigation', 'header', 'footer', 'sidebar', 'banner']);
const SENTENCE = /[.!?。！？:;,]/;

/** The weight of one block in the subtree sums. Exported for the unit tests. */
export function blockWeight(b: RawBlock, thread = false): number {
  const len = b.textChars;
  if (len === 0) return 0;
  const links = Math.min(b.linkChars, len);
  const section = b.section;
  if (CHROME.has(section)) return -(len * (b.strong ? 1.5 : 1)) - 10;
  if (section === 'metadata') return -Math.min(len, 80) * 0.25;
  if (b.kind === 'heading') return links > len / 2 ? -links * 0.5 : 0;
  if (b.kind === 'code') return len;
  const content = len - links;
  let w = content - 2 * links;
  if (b.kind === 'table') w = content * 0.8 - links;
  if (len < 40 && !SENTENCE.test(b.text)) w -= 15;
  if (b.ctx.inComments && !thread) w = Math.min(w, 0);
  return w;
}

interface Candidate {
  el: Element;
  score: number;
  /** The score with contributions decaying with distance: what picks the winner. */
  rank: number;
  depth: number;
}

function ancestors(b: RawBlock, root: ParentNode): Element[] {
  const chain: Element[] = [];
  let cur: ParentNode | null = b.el;
  while (cur && cur !== root && cur.type === 'tag') {
    chain.push(cur as Element);
    cur = cur.parent;
  }
  return chain;
}

export const tuning = {
  debug: false,
  decay: 1,
  context: true,
  threadShare: 0.6,
  threadOwn: 1500,
  dropFigures: false,
  shortLen: 40,
  goodLen: 150,
  mode: 'auto',
  measure: 'nonlink',
  coverage: 0.6,
  last: {} as Record<string, number>,
};

function isContent(b: RawBlock, thread: boolean): boolean {
  return !CHROME.has(b.section) && b.section !== 'metadata' && (thread || !b.ctx.inComments);
}

/** True when comments hold most of the page's running text: a thread, where they are the content. */
function isThread(blocks: RawBlock[]): boolean {
  let comments = 0;
  let all = 0;
  for (const b of blocks) {
    if (CHROME.has(b.section)) continue;
    const p = proseChars(b);
    all += p;
    if (b.ctx.inComments) comments += p;
  }
  tuning.last.comments = comments;
  tuning.last.prose = all;
  return comments > tuning.threadShare * all && all - comments < tuning.threadOwn;
}

/** The subtree sums of block weights for every element above a block, with each element's depth. */
function subtreeSums(chains: Element[][], weights: number[]): Map<Element, Candidate> {
  const sums = new Map<Element, Candidate>();
  chains.forEach((chain, i) => {
    const w = weights[i]!;
    let factor = 1;
    chain.forEach((el, k) => {
      // content spread thin over many small containers (teaser grids) counts less, the further up
      const r = w > 0 ? w * factor : w;
      if (k >= 1) factor *= tuning.decay;
      const c = sums.get(el);
      if (c) {
        c.score += w;
        c.rank += r;
      } else sums.set(el, { el, score: w, rank: r, depth: chain.length - k });
    });
  });
  return sums;
}

/**
 * Decides, block by block, what belongs to the main content of the page under `root`. When one
 * region holds most of the page's non-chrome text (an article, a thread, a docs page) that region is
 * the main content; otherwise (landing pages, listings) all non-chrome blocks are.
 */
export function selectMain(blocks: RawBlock[], root: ParentNode): boolean[] {
  tuning.last = {};
  const thread = isThread(blocks);
  const weights = blocks.map((b) => blockWeight(b, thread));
  const content = blocks.map((b) => isContent(b, thread));
  if (tuning.mode === 'all') return content;
  const chains = blocks.map((b) => ancestors(b, root));
  const sums = subtreeSums(chains, weights);
  let best: Candidate | null = null;
  for (const c of sums.values()) {
    if (!best || c.rank > best.rank || (c.rank === best.rank && c.depth > best.depth)) best = c;
  }
  if (tuning.debug) {
    const top = [...sums.values()].sort((a, b) => b.rank - a.rank).slice(0, 8);
    (tuning as unknown as { top: string[] }).top = top.map(
      (c) => `${c.rank.toFixed(0)}/${c.score.toFixed(0)} d${c.depth} <${c.el.name} ${JSON.stringify(c.el.attribs).slice(0, 120)}>`,
    );
  }
  if (!best || best.score <= 0) return content;
  const region = new Set<Element>([best.el]);
  mergeSiblings(best, sums, region);
  const inRegion = chains.map((chain) => chain.some((el) => region.has(el)));
  let textIn = 0;
  let textAll = 0;
  blocks.forEach((b, i) => {
    if (!content[i]) return;
    const t = tuning.measure === 'text' ? b.textChars : Math.max(0, b.textChars - b.linkChars);
    textAll += t;
    if (inRegion[i]) textIn += t;
  });
  Object.assign(tuning.last, { textIn, textAll, best: best.score });
  if (tuning.mode === 'auto' && textIn < tuning.coverage * textAll) return content;
  const picked = blocks.map((b, i) => inRegion[i]! && content[i]! && keepInRegion(b, weights[i]!));
  if (tuning.context) refineByContext(blocks, picked);
  return picked;
}

type Kind = 'good' | 'bad' | 'short' | 'near' | 'heading';

/** jusText-style block classes: long prose is good, link lists are bad, the rest depends on context. */
function blockClass(b: RawBlock): Kind {
  const len = b.textChars;
  if (b.kind === 'code' || b.kind === 'rule') return 'good';
  if (len === 0) return tuning.dropFigures ? 'bad' : 'short';
  if (b.linkChars > 0.5 * len) return 'bad';
  if (b.kind === 'heading') return 'heading';
  if (b.kind === 'figure') return tuning.dropFigures ? 'bad' : 'short';
  if (b.kind === 'table') return 'good';
  if (len < tuning.shortLen) return 'short';
  if (len >= tuning.goodLen && SENTENCE.test(b.text)) return 'good';
  return 'near';
}

/**
 * Within an article-like region, short and middling blocks take their neighbours' class: a caption
 * credit or a 'Related Tags' label at the edge of the text goes, a short line between paragraphs stays.
 */
function refineByContext(blocks: RawBlock[], picked: boolean[]): void {
  const idx = picked.flatMap((p, i) => (p ? [i] : []));
  const cls = idx.map((i) => blockClass(blocks[i]!));
  const neighbour = (k: number, step: number, skip: Set<Kind>): Kind => {
    for (let j = k + step; j >= 0 && j < cls.length; j += step) if (!skip.has(cls[j]!)) return cls[j]!;
    return 'bad';
  };
  const shortish = new Set<Kind>(['short', 'heading']);
  for (let k = 0; k < cls.length; k++) {
    if (cls[k] !== 'near') continue;
    const prev = neighbour(k, -1, shortish);
    const next = neighbour(k, 1, shortish);
    cls[k] = prev === 'good' || next === 'good' || prev === 'near' || next === 'near' ? 'good' : 'bad';
  }
  const resolved = cls.slice();
  for (let k = 0; k < cls.length; k++) {
    if (cls[k] === 'short') {
      const both = neighbour(k, -1, shortish) === 'good' && neighbour(k, 1, shortish) === 'good';
      resolved[k] = both ? 'good' : 'bad';
    } else if (cls[k] === 'heading') {
      resolved[k] = neighbour(k, 1, new Set<Kind>(['short', 'heading'])) === 'good' ? 'good' : 'bad';
    }
  }
  idx.forEach((i, k) => {
    if (resolved[k] === 'bad') picked[i] = false;
  });
}

/** Adds the siblings of the winner whose own subtree holds substantial positive content. */
function mergeSiblings(best: Candidate, sums: Map<Element, Candidate>, region: Set<Element>): void {
  const parent = best.el.parent;
  if (!parent) return;
  const threshold = Math.max(100, best.score * 0.2);
  for (const sib of parent.children) {
    if (sib === best.el || sib.type !== 'tag') continue;
    const c = sums.get(sib as Element);
    if (c && c.score >= threshold) region.add(sib as Element);
  }
}

function keepInRegion(b: RawBlock, weight: number): boolean {
  if (b.kind === 'heading' || b.kind === 'code' || b.kind === 'rule' || b.kind === 'figure') return true;
  return weight > -20 || b.textChars - b.linkChars > 200;
}
