/**
 * What a door says beside an answer's wire body: services return these facts in their outcomes, the op
 * takes them off the body and keeps them here; the REST door turns them into headers, the MCP door into hints.
 */
import type { QueueWait } from '../core/contents/admission.js';

/** Facts about an answer that are not part of its wire body. */
export interface ReplyNotes {
  /** The admission queue's wait of the call's live fetches (`x-svc-queued`, `x-svc-queue-ms`). */
  queue?: QueueWait;
  /** Full text length per result URL before `offset` and `maxCharacters` (for reading long pages in parts). */
  textLengths?: ReadonlyMap<string, number>;
}

const kept = new WeakMap<object, ReplyNotes>();

/** `body` with `notes` kept beside it (found again by `notesOf`). */
export function withNotes<T extends object>(body: T, notes: ReplyNotes): T {
  kept.set(body, notes);
  return body;
}

/** The notes kept beside `body`; none when it has none. */
export function notesOf(body: object): ReplyNotes {
  return kept.get(body) ?? {};
}

/** An outcome without its `facts` (index signatures kept, unlike `Omit`). */
export type WithoutFacts<T> = { [K in keyof T as K extends 'facts' ? never : K]: T[K] };

/** A service's outcome as a wire body: its `facts` taken off and kept as the body's notes. */
export function replyOf<T extends { facts?: ReplyNotes }>(outcome: T): WithoutFacts<T> {
  const { facts, ...body } = outcome;
  const notes: ReplyNotes = facts ? { queue: facts.queue, textLengths: facts.textLengths } : {};
  return withNotes(body, notes) as unknown as WithoutFacts<T>;
}
