/**
 * Paths into JSON, found without recursion: where in a text or a parsed value a hostile shape (ten
 * thousand levels, a hundred thousand keys) passed a limit, so the refusal can name the field
 * (./json-shape.ts finds the breach; this names it). Also remembers which parsed bodies were measured.
 */

/** A path into a JSON value: object keys and array indices, from the root. */
export type JsonPath = (string | number)[];

/** What the second pass, which names the path, reads: brackets, strings, and the separators. */
const TOKENS = /[[\]{}",:]/g;

/** The index of the quote closing the string whose opening quote is at `open` (or the text's end). */
export function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let slashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === 92; i--) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

interface Frame {
  array: boolean;
  /** The key being read (objects) or the index (arrays) of the frame's current member. */
  at: string | number | undefined;
}

/** A JSON string's value from its text (quotes included), or its raw text when it does not decode. */
function decodeKey(raw: string): string {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, -1);
  }
}

/**
 * The path to the container whose opening bracket is at `offset` of `text`: the key or index each
 * enclosing container was at there. Reads only up to `offset`, once.
 */
export function pathAt(text: string, offset: number): JsonPath {
  const stack: Frame[] = [];
  let lastString: string | undefined;
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m && m.index < offset; m = TOKENS.exec(text)) {
    const c = m[0];
    const top = stack.at(-1);
    if (c === '"') {
      const end = stringEnd(text, m.index);
      lastString = text.slice(m.index, end + 1);
      TOKENS.lastIndex = end + 1;
    } else if (c === ':') {
      if (top && !top.array && lastString !== undefined) top.at = decodeKey(lastString);
    } else if (c === ',') {
      if (top?.array) top.at = (top.at as number) + 1;
    } else if (c === '{' || c === '[') {
      stack.push({ array: c === '[', at: c === '[' ? 0 : undefined });
    } else stack.pop();
  }
  return stack.map((f) => f.at ?? '');
}

/** A container met by a walk over a parsed value, with the way back to the root. */
export interface PathNode {
  value: object;
  depth: number;
  parent: PathNode | undefined;
  key: string | number;
}

/** The path from the root to `node`. */
export function pathOf(node: PathNode | undefined): JsonPath {
  const path: JsonPath = [];
  for (let n = node; n?.parent; n = n.parent) path.unshift(n.key);
  return path;
}

/** Bodies whose text was measured by the door before parsing (no second walk needed). */
const measured = new WeakSet<object>();

/** Records that `value`, parsed from a text `shapeBreachInText` passed, needs no further measuring. */
export function markMeasured(value: unknown): void {
  if (typeof value === 'object' && value !== null) measured.add(value);
}

/** Whether `value` was parsed from a text already measured (see `markMeasured`). */
export function wasMeasured(value: unknown): boolean {
  return typeof value === 'object' && value !== null && measured.has(value);
}
