/**
 * Finishing passes over the blocks picked as main content: jusText-style context rules for short
 * lines inside an article, and text repeated by responsive layouts.
 */
import type { RawBlock } from './blocks.js';
import { SENTENCE, isLinkLine } from './weights.js';

type Kind = 'good' | 'bad' | 'short' | 'near' | 'heading' | 'linkhead';

/** Below this many characters a block is a short line; from `GOOD_LEN` on (with punctuation) prose. */
const SHORT_LEN = 40;
const GOOD_LEN = 150;
/** Repeats shorter than this are left alone ('Learn more' under every card is what the page shows). */
const REPEAT_LEN = 40;

function blockClass(b: RawBlock): Kind {
  const len = b.textChars;
  if (b.kind === 'code' || b.kind === 'rule') return 'good';
  if (len === 0) return 'short';
  // a linked heading inside the text is a teaser ('Read: ...'): dropped, but it does not make the
  // paragraphs around it look like boilerplate
  if (isLinkLine(b)) return b.kind === 'heading' ? 'linkhead' : 'bad';
  if (b.kind === 'heading') return 'heading';
  if (b.kind === 'figure') return 'short';
  if (b.kind === 'table') return 'good';
  if (len < SHORT_LEN) return 'short';
  return len >= GOOD_LEN && SENTENCE.test(b.text) ? 'good' : 'near';
}

const TRANSPARENT = new Set<Kind>(['short', 'heading', 'linkhead']);

/**
 * Within an article region, short and middling blocks take their neighbours' class (after jusText):
 * a middling block next to prose is prose, a short line between two prose blocks stays, a heading
 * stays when prose follows it, and captions, credits or 'Related tags' at the edges of the text go.
 */
export function refineByContext(blocks: RawBlock[], picked: boolean[]): void {
  const idx = picked.flatMap((p, i) => (p ? [i] : []));
  const cls = idx.map((i) => blockClass(blocks[i]!));
  const neighbour = (k: number, step: number): Kind => {
    for (let j = k + step; j >= 0 && j < cls.length; j += step) if (!TRANSPARENT.has(cls[j]!)) return cls[j]!;
    return 'bad';
  };
  for (let k = 0; k < cls.length; k++) {
    if (cls[k] !== 'near') continue;
    const around = [neighbour(k, -1), neighbour(k, 1)];
    cls[k] = around.includes('good') || around.includes('near') ? 'good' : 'bad';
  }
  const keep = idx.map((_, k) => {
    const c = cls[k]!;
    if (c === 'short') return neighbour(k, -1) === 'good' && neighbour(k, 1) === 'good';
    if (c === 'heading') return neighbour(k, 1) === 'good';
    return c === 'good';
  });
  idx.forEach((i, k) => {
    if (!keep[k]) picked[i] = false;
  });
}

/**
 * Responsive pages often carry the same text twice (a desktop and a mobile layout, cloned carousel
 * slides) where a browser shows one: later copies of a main block are dropped (code excepted).
 */
export function dropRepeats(blocks: RawBlock[], picked: boolean[]): void {
  const seen = new Set<string>();
  blocks.forEach((b, i) => {
    if (!picked[i] || b.textChars < REPEAT_LEN || b.kind === 'code') return;
    if (seen.has(b.text)) picked[i] = false;
    else seen.add(b.text);
  });
}
