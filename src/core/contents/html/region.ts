/**
 * Finds the region of the page that holds its text: every element gets the sum of its blocks'
 * weights (decaying with distance, so text spread thin over many small containers counts less), the
 * best element is the core, and the core widens level by level over siblings that read like content.
 */
import type { Element, ParentNode } from 'domhandler';
import type { RawBlock } from './blocks.js';

/** An element with the sums of the blocks beneath it. */
export interface Candidate {
  el: Element;
  /** Sum of the block weights in the subtree. */
  score: number;
  /** The same sum with contributions decaying by 0.9 per level above a block's parent: picks the core. */
  rank: number;
  /** Characters of content-like text (prose, tables, plain headings) in the subtree. */
  good: number;
  /** Characters of link text, linked headings and short UI strings in the subtree. */
  bad: number;
  depth: number;
}

const DECAY = 0.9;
/** A sibling joins the region with at least this much content-like text... */
const MIN_GOOD = 100;
/** ...and this many times more content-like than boilerplate-like text. */
const GOOD_RATIO = 3;

/** The elements from a block's element up to (not including) `root`, innermost first. */
export function ancestors(b: RawBlock, root: ParentNode): Element[] {
  const chain: Element[] = [];
  let cur: ParentNode | null = b.el;
  while (cur && cur !== root && cur.type === 'tag') {
    chain.push(cur as Element);
    cur = cur.parent;
  }
  return chain;
}

/** Sums weights and content/boilerplate characters into every element above each block. */
export function subtreeSums(chains: Element[][], weights: number[], gb: [number, number][]): Map<Element, Candidate> {
  const sums = new Map<Element, Candidate>();
  chains.forEach((chain, i) => {
    const w = weights[i]!;
    const [good, bad] = gb[i]!;
    let factor = 1;
    chain.forEach((el, k) => {
      const r = w > 0 ? w * factor : w;
      if (k >= 1) factor *= DECAY;
      const c = sums.get(el);
      if (c) {
        c.score += w;
        c.rank += r;
        c.good += good;
        c.bad += bad;
      } else sums.set(el, { el, score: w, rank: r, good, bad, depth: chain.length - k });
    });
  });
  return sums;
}

/** The element with the highest rank (the deeper one on a tie), or null for an empty page. */
export function findCore(sums: Map<Element, Candidate>): Candidate | null {
  let best: Candidate | null = null;
  for (const c of sums.values()) {
    if (!best || c.rank > best.rank || (c.rank === best.rank && c.depth > best.depth)) best = c;
  }
  return best;
}

function isArticle(el: Element): boolean {
  return el.name === 'article' || el.attribs.role === 'article';
}

function isMain(el: Element): boolean {
  return el.name === 'main' || el.attribs.role === 'main';
}

const HEADING = /^h[1-6]$/;

/** A heading sibling right above a region member is that section's title: it joins too. */
function addSectionHeadings(siblings: Element[], region: Set<Element>): void {
  for (let i = siblings.length - 2; i >= 0; i--) {
    const el = siblings[i]!;
    if (HEADING.test(el.name) && region.has(siblings[i + 1]!)) region.add(el);
  }
}

/**
 * The core plus the siblings, at each level up to `root`, whose subtree reads like content (mostly
 * prose, few links and UI strings); teaser grids, link lists and chrome stay out. The page's own
 * `<main>` bounds the climb, and so does the `<article>` holding the core (its siblings are other
 * posts), except in a thread whose posts are articles.
 */
export function widen(core: Candidate, sums: Map<Element, Candidate>, root: ParentNode, thread: boolean): Set<Element> {
  const region = new Set<Element>([core.el]);
  const bound = (el: Element) => isMain(el) || (!thread && isArticle(el));
  let cur: Element = core.el;
  while (cur.parent && cur.parent !== root && cur.parent.type === 'tag' && !bound(cur)) {
    const siblings = cur.parent.children.filter((c): c is Element => c.type === 'tag');
    for (const sib of siblings) {
      const c = sums.get(sib);
      if (sib !== cur && c && c.good >= MIN_GOOD && c.good >= GOOD_RATIO * c.bad) region.add(sib);
    }
    addSectionHeadings(siblings, region);
    cur = cur.parent as Element;
  }
  return region;
}
