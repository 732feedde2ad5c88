/**
 * How deep a JSON text or value nests, found without recursion: a hostile body (`{"a":{"a":…}}` ten
 * thousand levels down) is refused before anything walks it recursively (JSON.stringify, zod, Ajv) and
 * overflows the stack, and a text is measured before JSON.parse spends a second on two million levels.
 */

/** A path into a JSON value: object keys and array indices, from the root. */
export type JsonPath = (string | number)[];

const [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [34, 123, 125, 91, 93];
/** What the second pass, which names the path, reads: brackets, strings, and the separators. */
const TOKENS = /[[\]{}",:]/g;

/** The index of the quote closing the string whose opening quote is at `open` (or the text's end). */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let slashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === 92; i--) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

/** Whether `text` (JSON, valid or not) opens more than `max` arrays and objects inside each other. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  // a plain character loop: about 5 ms for 4 MB, no more than JSON.parse of the same text
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
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

/** The path to the container that `text` opens at nesting level `max + 1`, found by a second, slower pass. */
function pathBeyond(text: string, max: number): JsonPath {
  const stack: Frame[] = [];
  let lastString: string | undefined;
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m; m = TOKENS.exec(text)) {
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
      if (stack.length === max) break;
      stack.push({ array: c === '[', at: c === '[' ? 0 : undefined });
    } else stack.pop();
  }
  return stack.map((f) => f.at ?? '');
}

/**
 * The path to the first array or object of `text` nested deeper than `max` levels (`{}` is one level),
 * or undefined when none is. Strings are skipped, so brackets inside them do not count. Linear time.
 */
export function tooDeepInText(text: string, max: number): JsonPath | undefined {
  return nestsDeeperThan(text, max) ? pathBeyond(text, max) : undefined;
}

interface Node {
  value: object;
  depth: number;
  parent: Node | undefined;
  key: string | number;
}

/** The path from the root to `node`. */
function pathOf(node: Node | undefined): JsonPath {
  const path: JsonPath = [];
  for (let n = node; n?.parent; n = n.parent) path.unshift(n.key);
  return path;
}

/**
 * The path to the first array or object of `value` nested deeper than `max` levels, or undefined when
 * none is. Iterative: any depth is measured without growing the stack.
 */
export function tooDeepInValue(value: unknown, max: number): JsonPath | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Node[] = [{ value, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > max) return pathOf(node);
    const entries = Array.isArray(node.value) ? node.value.entries() : Object.entries(node.value);
    for (const [key, child] of entries) {
      if (typeof child === 'object' && child !== null) {
        stack.push({ value: child as object, depth: node.depth + 1, parent: node, key });
      }
    }
  }
  return undefined;
}

/** Bodies whose text was measured by the door before parsing (no second walk needed). */
const measured = new WeakSet<object>();

/** Records that `value`, parsed from a text `tooDeepInText` passed, needs no further measuring. */
export function markMeasured(value: unknown): void {
  if (typeof value === 'object' && value !== null) measured.add(value);
}

/** Whether `value` was parsed from a text already measured (see `markMeasured`). */
export function wasMeasured(value: unknown): boolean {
  return typeof value === 'object' && value !== null && measured.has(value);
}
