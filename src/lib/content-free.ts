/**
 * What a zero-retention team's log line may hold: an allowlist of fields that say what happened and how
 * it went (method, status, timings, tags, ids Trawl made), never what was asked or fetched. Anything not
 * listed is dropped, whatever its name, so a new field carrying a URL or a query cannot slip through.
 */

/** Field names a content-free line keeps (with a number, a boolean, null or a short token as value). */
const CONTENT_FREE_FIELDS: ReadonlySet<string> = new Set([
  'zeroRetention',
  'requestId',
  'teamId',
  'keyId',
  'tool',
  'operation',
  'method',
  'route',
  'status',
  'ok',
  'ms',
  'elapsedMs',
  'waitMs',
  'tag',
  'code',
  'kind',
  'attempt',
  'retry',
  'runId',
  'monitorId',
  'agentRunId',
  'jobId',
  'eventId',
  'loop',
  'candidates',
  'snippets',
  'dropped',
  'listed',
  'queued',
  'attempted',
]);

/** A string value kept: a short token (a tag, an id, a method, a route template), never a URL or words. */
const TOKEN = /^[\w.:/-]{1,80}$/;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const QUOTED = /"[^"]*"|“[^”]*”|‘[^’]*’|'[^']*'|`[^`]*`/g;
/** What replaces a part of a message that may be content. */
const CONTENT = '[content]';

/** `value` if a content-free line may show it, else undefined. */
function safeValue(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string' && !value.includes('//') && TOKEN.test(value)) return value;
  return undefined;
}

/** An error as a content-free line shows it: its class, tag and code; never its message or stack. */
function contentFreeError(err: unknown): Record<string, unknown> {
  const e = (err ?? {}) as { name?: unknown; tag?: unknown; code?: unknown };
  return pick({ type: e.name, tag: e.tag, code: e.code }, new Set(['type', 'tag', 'code']));
}

/** The listed fields of `object` whose values are safe. */
function pick(object: Record<string, unknown>, allowed: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(object)) {
    if (!allowed.has(name)) continue;
    const safe = safeValue(value);
    if (safe !== undefined) out[name] = safe;
  }
  return out;
}

/** The content-free fields of a log object: the allowlisted ones, and `err`/`error` reduced to their class. */
export function contentFreeFields(object: unknown): Record<string, unknown> {
  if (object instanceof Error) return { err: contentFreeError(object) };
  if (object === null || typeof object !== 'object') return {};
  const fields = object as Record<string, unknown>;
  const out = pick(fields, CONTENT_FREE_FIELDS);
  for (const name of ['err', 'error']) if (fields[name] !== undefined) out[name] = contentFreeError(fields[name]);
  return out;
}

/** A log message with any URL or quoted part replaced by `[content]`. */
function contentFreeText(text: string): string {
  return text.replace(URL_IN_TEXT, CONTENT).replace(QUOTED, CONTENT);
}

/** The arguments of a log call, content-free: the object filtered, strings cleaned, anything else dropped. */
export function contentFreeArgs(args: readonly unknown[]): unknown[] {
  const [first, ...rest] = args;
  const head = typeof first === 'string' ? [contentFreeText(first)] : [contentFreeFields(first)];
  return [...head, ...rest.map((a) => (typeof a === 'string' ? contentFreeText(a) : CONTENT))];
}
