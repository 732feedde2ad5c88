/**
 * Finishing passes over the blocks picked as main content: 'Related articles' sections, and text
 * repeated by responsive layouts.
 */
import type { Element, ParentNode } from 'domhandler';
import type { RawBlock } from './blocks.js';

/** Repeats shorter than this are left alone ('Learn more' under every card is what the page shows). */
const REPEAT_LEN = 40;

/** How far up from a 'Related' heading its box may reach. */
const BOX_DEPTH = 3;
/** A heading that opens a list of other pages: 'Related articles', 'You may also like', 'Leia também'. */
const RELATED =
  /^(?:related(?: (?:articles?|posts?|stories|news|content|reading|links|coverage|videos?))?|(?:you|we think you) (?:may|might|will|'ll) (?:also )?(?:like|enjoy|love|be interested in)(?: these| this)?|more (?:stories|articles|news|posts|from [^.]{1,40}|on this(?: topic| story)?|like this)|read (?:more|also|next)|recommended(?: for you| reading| articles| stories| posts)?|popular (?:posts|stories|articles|now)|most (?:read|popular|viewed|shared)|trending(?: now| stories)?|latest (?:news|posts|stories|articles)|also read|don'?t miss|what to read next|up next|você (?:também )?pode gostar|leia (?:também|mais)|veja também|lesen sie (?:auch|mehr)|das könnte sie (?:auch )?interessieren|mehr zum thema|weitere artikel|(?:à )?lire aussi|sur le même sujet|vous (?:aimerez|pourriez aimer) aussi|(?:también )?te puede interesar|(?:noticias|artículos) relacionad[oa]s|leggi anche|articoli correlati|potrebbe interessarti|(?:people|customers|shoppers) who (?:viewed|bought) this (?:item|product)? ?also (?:viewed|bought)|customers also (?:viewed|bought|purchased)|(?:similar|related|recommended) (?:products|items)|frequently bought together|recently viewed(?: products| items)?|complete the look|shop the look|(?:share|like) this(?: article| post| story| page)?|(?:sign up|subscribe)(?: to| for)?(?: our| the)?(?: free| daily| weekly)? newsletters?|newsletters?|join our (?:mailing list|newsletter)|about the author|(?:similar|related|suggested|more) (?:threads|questions|topics|discussions)|(?:hot|linked) network questions)\W*$/i;

/**
 * A box opened by a 'Related articles' heading lists other pages' teasers, however long they are: the
 * heading and the picked blocks inside the heading's parent go, when no earlier picked block is there.
 */
export function dropRelated(blocks: RawBlock[], picked: boolean[]): void {
  let box: ParentNode | null = null;
  blocks.forEach((b, i) => {
    if (!picked[i]) return;
    if (box && !within(b.el, box)) box = null;
    if (!box && b.kind === 'heading' && b.textChars < 80 && RELATED.test(b.text.trim())) {
      box = relatedBox(blocks, picked, i);
    }
    if (box) picked[i] = false;
  });
}

/** The heading's box: its highest near ancestor (up to `BOX_DEPTH`) that opens with it; null when none. */
function relatedBox(blocks: RawBlock[], picked: boolean[], at: number): ParentNode | null {
  const earlier = blocks.slice(0, at).filter((_, j) => picked[j]);
  let box: ParentNode | null = null;
  let n: ParentNode | null = blocks[at]!.el.parent;
  for (let depth = 0; n && n.type === 'tag' && depth < BOX_DEPTH; depth++, n = n.parent) {
    const up: ParentNode = n;
    if (earlier.some((o) => within(o.el, up))) break;
    box = up;
  }
  return box;
}

function within(el: Element, box: ParentNode): boolean {
  for (let n: ParentNode | null = el.parent; n; n = n.parent) if (n === box) return true;
  return false;
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
