/**
 * Turns zod issues into the spec's errors: a message that names each field at fault and the rule it
 * broke, and the tag the spec has for it. Both doors use it, so REST and MCP say the same thing.
 */
import { type z } from 'zod';
import { compileProblem } from '../core/synthesis/schema-worker.js';
import { ServiceError, type ErrorTag } from '../errors.js';
import { wasMeasured, type JsonPath } from '../lib/json-depth.js';
import { shapeBreachInValue, type ShapeBreach, type ShapeLimits } from '../lib/json-shape.js';
import { callerSchemasIn } from '../schemas/json-schema.js';
import '../lib/zod-messages.js';

type Issue = z.core.$ZodIssue;

/** Issues a message lists; the rest are counted (`and 12 more`). */
const LISTED = 5;

/** The issues of a failed parse, flattened, and how many more unknown keys there were past those listed. */
interface Flat {
  issues: Issue[];
  unlisted: number;
}

/**
 * Flattens union failures to the branch that got furthest, so nested field errors surface, and splits
 * unknown keys into one issue per key: the first LISTED of each object, the rest only counted, so a
 * body of 10,000 unknown keys costs no more than the count.
 */
function flatten(issues: readonly Issue[], prefix: PropertyKey[] = [], flat: Flat = { issues: [], unlisted: 0 }): Flat {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message.startsWith('Invalid input')) {
      const deep = issue.errors.find((branch) => branch.some((i) => i.code !== 'invalid_type' || i.path.length > 0));
      if (deep) {
        flatten(deep, path, flat);
        continue;
      }
      const expected = issue.errors.flatMap((b) => b.map((i) => (i.code === 'invalid_type' ? i.expected : '')));
      flat.issues.push({ ...issue, path, message: `must be of type ${[...new Set(expected.filter(Boolean))].join(' or ')}` }); // prettier-ignore
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const one of perKey(issue, path, LISTED)) flat.issues.push(one);
      flat.unlisted += Math.max(0, issue.keys.length - LISTED);
      continue;
    }
    flat.issues.push({ ...issue, path });
  }
  return flat;
}

/**
 * One issue for each of the first `max` unknown keys, at the key's own path. The message (from
 * wireObject's error map or ours) reads `key: hint; key2: hint2`: each key's hint runs to the next key's
 * `; key2: `, searched for forward from where the last one ended, so only the message's start is read.
 */
function perKey(issue: z.core.$ZodIssueUnrecognizedKeys, path: PropertyKey[], max: number): Issue[] {
  const { keys, message } = issue;
  let at = 0; // where the current key's `key: ` should start; -1 once the message is not in that form
  return keys.slice(0, max).map((key, i) => {
    let text = 'unknown field';
    if (at >= 0 && message.startsWith(`${key}: `, at)) {
      const from = at + key.length + 2;
      const next = i + 1 < keys.length ? message.indexOf(`; ${keys[i + 1]}: `, from) : message.length;
      text = message.slice(from, next === -1 ? message.length : next);
      at = next === -1 ? -1 : next + 2;
    } else at = -1;
    return { ...issue, keys: [key], path: [...path, key], message: text };
  });
}

/** `contents.text.maxCharacters`, `urls[3]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, seg) => {
    if (typeof seg === 'number') return `${acc}[${seg}]`;
    return acc ? `${acc}.${String(seg)}` : String(seg);
  }, '');
}

/** Tags the spec has for particular fields; everything else is INVALID_REQUEST_BODY/_QUERY. */
function tagFor(issue: Issue, fallback: ErrorTag): ErrorTag {
  const paramTag = (issue as { params?: { tag?: ErrorTag } }).params?.tag;
  if (paramTag) return paramTag;
  const last = issue.path.at(-1);
  if (last === 'numResults') return issue.code === 'too_big' ? 'NUM_RESULTS_EXCEEDED' : 'INVALID_NUM_RESULTS';
  if (last === 'subpages' && issue.code === 'too_big') return 'SUBPAGES_LIMIT_EXCEEDED';
  return fallback;
}

export type InputPart = 'body' | 'query' | 'path';
const LABEL: Record<InputPart, string> = {
  body: 'Invalid request body',
  query: 'Invalid query parameters',
  path: 'Invalid path parameter',
};
const FALLBACK: Record<InputPart, ErrorTag> = {
  body: 'INVALID_REQUEST_BODY',
  query: 'INVALID_REQUEST_QUERY',
  path: 'INVALID_REQUEST',
};

/** A ServiceError naming the fields at fault (the first LISTED, then how many more) with the first one's tag and path. */
export function toValidationError(error: z.ZodError, part: InputPart): ServiceError {
  const { issues, unlisted } = flatten(error.issues);
  const first = issues[0];
  const lines = issues.slice(0, LISTED).map((i) => {
    const field = fieldPath(i.path);
    return field ? `${field}: ${i.message}` : i.message;
  });
  const more = issues.length - lines.length + unlisted;
  if (more > 0) lines.push(`and ${more} more`);
  const field = first ? fieldPath(first.path) || undefined : undefined;
  return new ServiceError(
    first ? tagFor(first, FALLBACK[part]) : FALLBACK[part],
    `${LABEL[part]}: ${lines.join('; ')}`,
    {
      ...(field ? { field } : {}),
    },
  );
}

/**
 * The shape a request body may have, checked before anything walks it (REST and /mcp on the text before
 * JSON.parse, MCP tool arguments as they arrive). Far above any body the spec allows (the largest, an
 * agent run with 2,000 rows, or a caller schema at its own limits, holds a few thousand values), and low
 * enough that parsing and validating a body at all of them at once stays within a few hundred ms.
 * Caller JSON Schemas have their own, lower limits (TRAWL_MAX_SCHEMA_*).
 */
export const BODY_LIMITS: Readonly<ShapeLimits> = Object.freeze({
  depth: 64,
  keys: 10_000,
  values: 200_000,
  containers: 20_000,
});

/**
 * The field a body over a limit is named by: its path down to the first array, at most two names
 * (`metadata.a`, `summary.schema`, `input.data`), since a path may run 64 levels down.
 */
function limitField(path: JsonPath): string {
  const names: string[] = [];
  for (const segment of path) {
    if (typeof segment === 'number' || names.length === 2) break;
    names.push(segment);
  }
  return fieldPath(names);
}

/** A path for a message, cut at 200 characters (keys are the caller's and may be long). */
const clipPath = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** What a body over each limit does, for the message. */
const BROKEN_RULE: Record<keyof ShapeLimits, (where: string) => string> = {
  depth: (where) => `nests deeper than ${BODY_LIMITS.depth} levels (at ${where})`,
  keys: (where) => `has more than ${BODY_LIMITS.keys} keys in one object (at ${where})`,
  values: (where) => `holds more than ${BODY_LIMITS.values} values in all (members and items at every level; passed at ${where})`, // prettier-ignore
  containers: (where) => `holds more than ${BODY_LIMITS.containers} objects and arrays in all (passed at ${where})`,
};

/** 400 INVALID_REQUEST_BODY for a body over one of BODY_LIMITS, naming the limit and where it was passed. */
export function bodyOverLimit({ limit, path }: ShapeBreach): ServiceError {
  const field = clipPath(limitField(path));
  const shown = clipPath(fieldPath(path.slice(0, 8))) + (path.length > 8 ? '…' : '');
  const rule = `${BROKEN_RULE[limit](shown || 'the root')}, the limit for request bodies`;
  return new ServiceError('INVALID_REQUEST_BODY', `${LABEL.body}: ${field ? `${field}: ` : ''}${rule}`, {
    ...(field ? { field } : {}),
  });
}

/** Parses `value` with `schema`, throwing the spec's validation error on failure. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, part: InputPart): z.output<T> {
  if (part === 'body' && !wasMeasured(value)) {
    // the REST door measured the text before parsing it; MCP arguments arrive parsed
    const breach = shapeBreachInValue(value, BODY_LIMITS);
    if (breach) throw bodyOverLimit(breach);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error, part);
  return result.data;
}

/**
 * Compiles, in the schema worker, every caller JSON Schema of `input` that the request schemas passed
 * (`outputSchema`, `summary.schema`, …), before the operation runs: 422 INVALID_JSON_SCHEMA naming the
 * field, with the compiler's reason, when one does not compile or takes too long.
 */
export async function compileCallerSchemas(input: unknown): Promise<void> {
  for (const { path, schema } of callerSchemasIn(input)) {
    const field = fieldPath(path);
    let problem: string | undefined;
    try {
      const reason = await compileProblem(schema);
      problem = reason && `not a valid JSON Schema: ${reason}`;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      problem = err.message; // past the deadline
    }
    if (problem) throw new ServiceError('INVALID_JSON_SCHEMA', `${LABEL.body}: ${field}: ${problem}`, { field });
  }
}
