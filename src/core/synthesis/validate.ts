/**
 * Validates a model's object answer against the caller's JSON Schema, in the schema worker
 * (./schema-worker.ts: compiled once per schema, off the event loop).
 */
import { validationProblem, type SchemaProblem } from './schema-worker.js';

export type { SchemaProblem };

/** A reply that is not JSON at all: nothing of it is repeated. */
const NOT_JSON: SchemaProblem = { text: 'the reply is not valid JSON', safe: 'the reply is not valid JSON' };

/**
 * Why `value` does not follow `schema` (a short list for the model to fix, and its safe form for the
 * caller: no field names the value chose), or undefined when it does.
 * Throws INVALID_JSON_SCHEMA when the schema does not compile or validating takes too long.
 */
export function schemaProblems(schema: Record<string, unknown>, value: unknown): Promise<SchemaProblem | undefined> {
  return validationProblem(schema, value);
}

/** Models without a JSON mode often wrap JSON in a Markdown fence: the text inside it, or the text. */
export function stripJsonFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text.trim();
}

/** A model's reply as JSON that follows `schema`, or why it is not (for the model to fix). */
export async function parseJsonReply<T = unknown>(
  text: string,
  schema: Record<string, unknown>,
): Promise<{ value?: T; problem?: SchemaProblem }> {
  let value: unknown;
  try {
    value = JSON.parse(stripJsonFence(text));
  } catch {
    return { problem: NOT_JSON };
  }
  const problem = await schemaProblems(schema, value);
  return problem ? { problem } : { value: value as T };
}
