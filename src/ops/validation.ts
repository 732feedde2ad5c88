/**
 * Turns zod issues into the spec's errors: a message that names each field at fault and the rule it
 * broke, and the tag the spec has for it. Both doors use it, so REST and MCP say the same thing.
 */
import { type z } from 'zod';
import { compileProblem } from '../core/synthesis/schema-worker.js';
import { ServiceError, type ErrorTag } from '../errors.js';
import { tooDeepInValue, wasMeasured, type JsonPath } from '../lib/json-depth.js';
import { callerSchemasIn } from '../schemas/json-schema.js';
import '../lib/zod-messages.js';

type Issue = z.core.$ZodIssue;

/** Flattens union failures to the branch that got furthest, so nested field errors surface. */
function flatten(issues: readonly Issue[], prefix: PropertyKey[] = []): Issue[] {
  const out: Issue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message.startsWith('Invalid input')) {
      const deep = issue.errors.find((branch) => branch.some((i) => i.code !== 'invalid_type' || i.path.length > 0));
      if (deep) {
        out.push(...flatten(deep, path));
        continue;
      }
      const expected = issue.errors.flatMap((b) => b.map((i) => (i.code === 'invalid_type' ? i.expected : '')));
      out.push({ ...issue, path, message: `must be of type ${[...new Set(expected.filter(Boolean))].join(' or ')}` });
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      out.push(...perKey(issue, path));
      continue;
    }
    out.push({ ...issue, path });
  }
  return out;
}

/**
 * One issue per unknown key, at the key's own path. The message (from wireObject's error map or ours)
 * reads `key: hint; key2: hint2`, so each key's part starts at its own `key: `.
 */
function perKey(issue: z.core.$ZodIssueUnrecognizedKeys, path: PropertyKey[]): Issue[] {
  const starts = issue.keys.map((k) => issue.message.indexOf(`${k}: `));
  return issue.keys.map((key, i) => {
    const start = starts[i] ?? -1;
    const end = starts.slice(i + 1).find((s) => s > start) ?? issue.message.length + 2;
    const text = start >= 0 ? issue.message.slice(start + key.length + 2, end - 2) : 'unknown field';
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

/** A ServiceError naming every field at fault (up to 5) with the first one's tag and path. */
export function toValidationError(error: z.ZodError, part: InputPart): ServiceError {
  const issues = flatten(error.issues);
  const first = issues[0];
  const lines = issues.slice(0, 5).map((i) => {
    const field = fieldPath(i.path);
    return field ? `${field}: ${i.message}` : i.message;
  });
  if (issues.length > 5) lines.push(`and ${issues.length - 5} more`);
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
 * Levels a request body may nest (`{}` is one): deeper bodies are refused before anything walks them
 * recursively. Caller JSON Schemas have their own, lower limit (TRAWL_MAX_SCHEMA_DEPTH).
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The field a too-deep body is named by: its path down to the first array, at most two names
 * (`metadata.a`, `summary.schema`, `input.data`), since the full path runs 64 levels down.
 */
function depthField(path: JsonPath): string {
  const names: string[] = [];
  for (const segment of path) {
    if (typeof segment === 'number' || names.length === 2) break;
    names.push(segment);
  }
  return fieldPath(names);
}

/** A path for a message, cut at 200 characters (keys are the caller's and may be long). */
const clipPath = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** 400 INVALID_REQUEST_BODY for a body that nests deeper than MAX_BODY_DEPTH at `path`. */
export function bodyTooDeep(path: JsonPath): ServiceError {
  const field = clipPath(depthField(path));
  const shown = clipPath(fieldPath(path.slice(0, 8))) + (path.length > 8 ? '…' : '');
  const rule = `nests deeper than ${MAX_BODY_DEPTH} levels (at ${shown || 'the root'}), the limit for request bodies`;
  return new ServiceError('INVALID_REQUEST_BODY', `${LABEL.body}: ${field ? `${field}: ` : ''}${rule}`, {
    ...(field ? { field } : {}),
  });
}

/** Parses `value` with `schema`, throwing the spec's validation error on failure. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, part: InputPart): z.output<T> {
  if (part === 'body' && !wasMeasured(value)) {
    // the REST door measured the text before parsing it; MCP arguments arrive parsed
    const deep = tooDeepInValue(value, MAX_BODY_DEPTH);
    if (deep) throw bodyTooDeep(deep);
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
