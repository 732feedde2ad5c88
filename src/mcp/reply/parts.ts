/**
 * Fits an answer into a token budget, part by part: blocks in order, the one that does not fit cut at
 * a clean boundary (paragraph, line, sentence, word) and continued in the next part. Counted with the
 * real tokenizer over the text and the structured content together. Joined, the parts give every
 * block's content exactly once, in order, and every structured entry once.
 */
import type { TokenCounter } from '../../lib/tokens.js';
import type { Answer, AnswerBlock } from '../../ops/reply.js';
import { createFence, type Fence } from './fence.js';

/** Where a part starts: a block, and characters of its content already given. */
export interface Position {
  block: number;
  offset: number;
}

export interface Part {
  text: string;
  structured: Record<string, unknown>;
  /** Where the next part starts, or null when this one ends the answer. */
  next: Position | null;
}

export interface PartOptions {
  maxTokens: number;
  count: TokenCounter;
  /** The line that tells how to continue, given the cursor of the next part. */
  continueLine: (next: Position) => string;
  /** The `nextCursor` value for a part that does not end the answer. */
  cursorFor: (next: Position) => string;
  /** Where this part starts (default: the beginning) and its number (1-based). */
  start?: Position;
  partNo?: number;
}

/** Below this many tokens of room a block is not started in this part (unless it is the part's first). */
const MIN_SLICE_TOKENS = 120;
const CONTINUES = '[continues in the next part]';

/** The part of `answer` that starts at `options.start`, within `options.maxTokens` (text + structured). */
export function fitPart(answer: Answer, options: PartOptions): Part {
  let budget = options.maxTokens;
  let part = buildPart(answer, options, budget);
  // token counts of pieces add up to about the count of their join: check the whole, tighten if over
  for (let i = 0; i < 3; i++) {
    const total = options.count(part.text) + options.count(JSON.stringify(part.structured));
    if (total <= options.maxTokens) break;
    budget -= total - options.maxTokens + 16;
    part = buildPart(answer, options, budget);
  }
  return part;
}

function buildPart(answer: Answer, options: PartOptions, budget: number): Part {
  const { count } = options;
  const start = options.start ?? { block: 0, offset: 0 };
  const first = start.block === 0 && start.offset === 0;
  const fence = createFence(contentsOf(answer));
  const pieces = [first ? answer.head : `(Part ${options.partNo ?? 2} of this answer, continued.)`];
  const entries: Record<string, unknown>[] = [];
  // the continuation line and the cursor are reserved up front: a cut part needs both
  const probe = options.cursorFor({ block: answer.blocks.length, offset: Number.MAX_SAFE_INTEGER });
  const reserve = count(options.continueLine({ block: 0, offset: 0 })) + count(probe) + 16;
  let used = count(pieces[0]!) + count(JSON.stringify(structuredOf(answer, []))) + reserve;
  let next: Position | null = null;
  for (let i = start.block; i < answer.blocks.length; i++) {
    const block = answer.blocks[i]!;
    const offset = i === start.block ? start.offset : 0;
    const entry = offset === 0 ? block.entry : undefined;
    const entryCost = entry ? count(JSON.stringify(entry)) + 1 : 0;
    const rest = (block.content ?? '').slice(offset);
    const whole = render(block, offset, rest, block.after, fence);
    const cost = count(whole) + entryCost;
    if (used + cost <= budget) {
      pieces.push(whole);
      if (entry) entries.push(entry);
      used += cost;
      continue;
    }
    const alone = pieces.length === 1; // nothing of a block yet: this part must give something
    const room = budget - used - entryCost - count(render(block, offset, '', CONTINUES, fence));
    if (rest.length > 0 && (room >= MIN_SLICE_TOKENS || alone)) {
      const cut = cutAt(rest, Math.max(room, 1), count);
      pieces.push(render(block, offset, rest.slice(0, cut), CONTINUES, fence));
      if (entry) entries.push(entry);
      next = cut < rest.length ? { block: i, offset: offset + cut } : { block: i + 1, offset: 0 };
    } else if (alone) {
      pieces.push(whole); // a block with nothing to cut (a long label) goes whole rather than never
      if (entry) entries.push(entry);
      next = i + 1 < answer.blocks.length || answer.tail ? { block: i + 1, offset: 0 } : null;
    } else {
      next = { block: i, offset };
    }
    break;
  }
  if (!next && answer.tail) {
    const tailCost = count(answer.tail);
    if (used + tailCost <= budget || pieces.length === 1) pieces.push(answer.tail);
    else next = { block: answer.blocks.length, offset: 0 };
  }
  const structured = structuredOf(answer, entries);
  if (next) {
    structured.nextCursor = options.cursorFor(next);
    pieces.push(options.continueLine(next));
  }
  return { text: pieces.filter(Boolean).join('\n\n'), structured, next };
}

/** The structured content of a part: the answer's fields, and the entries that start in it when it lists any. */
function structuredOf(answer: Answer, entries: Record<string, unknown>[]): Record<string, unknown> {
  return answer.entriesKey === undefined
    ? { ...answer.structured }
    : { ...answer.structured, [answer.entriesKey]: entries };
}

/** One block as text: its label, its content fenced when it came from outside, its notes. */
function render(block: AnswerBlock, offset: number, content: string, after: string | undefined, fence: Fence): string {
  const label = offset > 0 ? `${block.label} (continued)`.trim() : block.label;
  const body = block.source === undefined ? content : fence.wrap(block.source, content);
  return [label, body, after].filter((s) => s !== undefined && s !== '').join('\n');
}

/** Every string an answer carries, so that the fence's nonce is drawn outside all of them. */
function contentsOf(answer: Answer): string[] {
  return [
    answer.head,
    answer.tail ?? '',
    ...answer.blocks.flatMap((b) => [b.label, b.source ?? '', b.content ?? '', b.after ?? '']),
  ];
}

/**
 * How many characters of `text` fit in `room` tokens, ending at a clean boundary when one is near:
 * a paragraph, else a line, else a sentence, else a word. At least one character.
 */
export function cutAt(text: string, room: number, count: TokenCounter): number {
  if (count(text) <= room) return text.length;
  const sample = text.slice(0, 20000);
  const charsPerToken = sample.length / Math.max(1, count(sample));
  let n = Math.min(text.length - 1, Math.max(1, Math.floor(room * charsPerToken)));
  for (let guard = 0; guard < 40; guard++) {
    const cut = snap(text, n);
    if (count(text.slice(0, cut)) <= room || cut <= 1) return Math.max(1, cut);
    n = Math.max(1, Math.floor(n * 0.9));
  }
  return 1;
}

/** The last clean boundary in the final 30% before `n`, or `n` itself. */
function snap(text: string, n: number): number {
  const floor = Math.floor(n * 0.7);
  for (const sep of ['\n\n', '\n', '. ', ' ']) {
    const at = text.lastIndexOf(sep, n - sep.length);
    if (at >= floor && at > 0) return at + sep.length;
  }
  return n;
}
