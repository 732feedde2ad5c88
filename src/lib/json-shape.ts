/**
 * The structural limits of a request body (nesting depth, keys per object, values and containers in
 * all), checked in one linear pass: over the raw text before JSON.parse (REST and /mcp), or over a value
 * that arrived parsed (MCP tool arguments over stdio). Neither pass recurses, so no shape overflows the
 * stack, and neither builds anything per key, so 4 MiB of keys costs what reading 4 MiB costs.
 */
import { pathAt, pathOf, stringEnd, type JsonPath, type PathNode } from './json-depth.js';

/** Ceilings on a JSON value's shape. */
export interface ShapeLimits {
  /** Levels of arrays and objects inside each other (`{}` is one). */
  depth: number;
  /** Members of one object. */
  keys: number;
  /** Values at every level: each member, each element, and the root. */
  values: number;
  /** Arrays and objects in all, the root included. */
  containers: number;
}

/** Which limit a value passes and where: the path to the container that passed it. */
export interface ShapeBreach {
  limit: keyof ShapeLimits;
  path: JsonPath;
}

const [QUOTE, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, COMMA, COLON] = [34, 123, 125, 91, 93, 44, 58];
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** Per open container of the text pass: where it opens, whether it is an array, its member count. */
interface Frames {
  openAt: Int32Array;
  array: Uint8Array;
  members: Int32Array;
}

/**
 * The first limit the JSON `text` (valid or not) passes, or undefined. Strings are skipped, so brackets,
 * commas and colons inside them do not count; a key is counted at its colon, an element at its comma (and
 * the first one where an array is not empty). Linear in the text's length, however it is shaped.
 */
export function shapeBreachInText(text: string, limits: ShapeLimits): ShapeBreach | undefined {
  const size = limits.depth + 1; // finite: the text pass keeps a frame per level
  const f: Frames = { openAt: new Int32Array(size), array: new Uint8Array(size), members: new Int32Array(size) };
  let depth = 0; // open containers; the innermost is f.*[depth - 1]
  let values = 1; // the root
  let containers = 0;
  const breach = (limit: keyof ShapeLimits, at: number): ShapeBreach => ({ limit, path: pathAt(text, at) });
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === limits.depth) return breach('depth', i);
      if (++containers > limits.containers) return breach('containers', depth > 0 ? f.openAt[depth - 1]! : i);
      const array = c === OPEN_BRACKET;
      f.openAt[depth] = i;
      f.array[depth] = array ? 1 : 0;
      f.members[depth] = 0;
      depth++;
      if (array) {
        let next = i + 1;
        while (next < n && isSpace(text.charCodeAt(next))) next++;
        if (next < n && text.charCodeAt(next) !== CLOSE_BRACKET && ++values > limits.values) return breach('values', i);
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    } else if (depth > 0 && (c === COLON || (c === COMMA && f.array[depth - 1] === 1))) {
      const open = f.openAt[depth - 1]!;
      if (c === COLON && ++f.members[depth - 1]! > limits.keys) return breach('keys', open);
      if (++values > limits.values) return breach('values', open);
    }
  }
  return undefined;
}

/**
 * The first limit `value` passes, or undefined: the same counts as shapeBreachInText, in the same order
 * (containers are visited as their text would be read), without recursion.
 */
export function shapeBreachInValue(value: unknown, limits: ShapeLimits): ShapeBreach | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: PathNode[] = [{ value, depth: 1, parent: undefined, key: '' }];
  let values = 1;
  let containers = 0;
  const push = (node: PathNode, key: string | number, child: unknown) => {
    if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: node.depth + 1, parent: node, key }); // prettier-ignore
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.depth > limits.depth) return { limit: 'depth', path: pathOf(node) };
    if (++containers > limits.containers) return { limit: 'containers', path: pathOf(node.parent ?? node) };
    if (Array.isArray(node.value)) {
      const items = node.value as unknown[];
      if ((values += items.length) > limits.values) return { limit: 'values', path: pathOf(node) };
      for (let i = items.length - 1; i >= 0; i--) push(node, i, items[i]); // popped in document order
    } else {
      const record = node.value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length > limits.keys) return { limit: 'keys', path: pathOf(node) };
      if ((values += keys.length) > limits.values) return { limit: 'values', path: pathOf(node) };
      for (let i = keys.length - 1; i >= 0; i--) push(node, keys[i]!, record[keys[i]!]);
    }
  }
  return undefined;
}

/** The path to the first array or object of `value` nested deeper than `max` levels, or undefined. */
export function tooDeepInValue(value: unknown, max: number): JsonPath | undefined {
  const unbounded = Number.POSITIVE_INFINITY;
  return shapeBreachInValue(value, { depth: max, keys: unbounded, values: unbounded, containers: unbounded })?.path;
}
