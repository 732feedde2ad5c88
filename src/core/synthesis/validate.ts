/**
 * Validates a model's object answer against the caller's JSON Schema with Ajv (compiled once per
 * schema, loaded on first use so start-up does not pay for it).
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ValidateFunction } from 'ajv';

const require = createRequire(import.meta.url);
let ajv: AjvClass | undefined;
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;

function getAjv(): AjvClass {
  if (!ajv) {
    const { Ajv } = require('ajv') as { Ajv: typeof AjvClass };
    const addFormats = (require('ajv-formats') as { default: (a: AjvClass) => AjvClass }).default;
    ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  }
  return ajv;
}

/** Why `value` does not follow `schema` (a short list for the model to fix), or undefined when it does. */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): string | undefined {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = getAjv().compile(schema);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`,
    ) // prettier-ignore
    .join('; ');
}

/** Models without a JSON mode often wrap JSON in a Markdown fence: the text inside it, or the text. */
export function stripJsonFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text.trim();
}

/** A model's reply as JSON that follows `schema`, or why it is not (for the model to fix). */
export function parseJsonReply<T = unknown>(
  text: string,
  schema: Record<string, unknown>,
): { value?: T; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(stripJsonFence(text));
  } catch {
    return { problem: 'the reply is not valid JSON' };
  }
  const problem = schemaProblems(schema, value);
  return problem ? { problem } : { value: value as T };
}
