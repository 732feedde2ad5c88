/**
 * Checks that a caller-supplied JSON Schema (summary.schema, outputSchema) is a valid schema, with Ajv
 * against its meta-schema. Ajv is loaded on first use so that start-up does not pay for it.
 */
import { createRequire } from 'node:module';
import type { z } from 'zod';
import type { Ajv as AjvClass } from 'ajv';

const require = createRequire(import.meta.url);
let ajv: AjvClass | undefined;

function getAjv(): AjvClass {
  if (!ajv) {
    const { Ajv } = require('ajv') as { Ajv: typeof AjvClass };
    const addFormats = (require('ajv-formats') as { default: (a: AjvClass) => AjvClass }).default;
    ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateSchema: true }));
  }
  return ajv;
}

/** Why `schema` is not a valid JSON Schema, or undefined when it is. */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  try {
    const a = getAjv();
    if (a.validateSchema(schema as object)) return undefined;
    const first = a.errors?.[0];
    return first ? `${first.instancePath || '(root)'} ${first.message}` : 'not a valid JSON Schema';
  } catch (err) {
    return err instanceof Error ? err.message : 'not a valid JSON Schema';
  }
}

/** zod refinement: a valid JSON Schema, or an issue tagged INVALID_JSON_SCHEMA. */
export function checkJsonSchema(schema: unknown, ctx: z.RefinementCtx): void {
  const problem = jsonSchemaProblem(schema);
  if (problem) {
    ctx.addIssue({
      code: 'custom',
      message: `not a valid JSON Schema: ${problem}`,
      params: { tag: 'INVALID_JSON_SCHEMA' },
    });
  }
}
