/**
 * `outputSchema` of /search and monitors: plain text (`{type: 'text'}`) or a small JSON object schema.
 * The search form is limited to nesting depth 2 and 10 properties in total, and must not ask for
 * citations (grounding is returned on its own).
 */
import { z } from 'zod';
import { checkJsonSchema } from './json-schema.js';

/** Property names that would duplicate `output.grounding`; rejected at any depth. */
const CITATION_NAMES = new Set(['citations', 'citation', 'grounding']);

const OutputSchemaBase = z
  .object({
    type: z.enum(['text', 'object']).describe('`text` for a plain-text answer, `object` for structured JSON.'),
    description: z.string().optional().describe('Guides the synthesis.'),
    properties: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe('JSON Schema properties; required when type is object.'),
    required: z.array(z.string()).optional(),
    additionalProperties: z.boolean().optional(),
  })
  .loose();

interface ShapeStats {
  depth: number;
  count: number;
  citationPath?: string;
}

/** Depth and total property count of an object schema; the root's own properties are depth 1. */
export function measureSchema(schema: unknown, depth = 0, path = ''): ShapeStats {
  const stats: ShapeStats = { depth, count: 0 };
  if (typeof schema !== 'object' || schema === null) return stats;
  const node = schema as { properties?: Record<string, unknown>; items?: unknown };
  if (node.items) return measureSchema(node.items, depth, `${path}[]`);
  if (!node.properties || typeof node.properties !== 'object') return stats;
  for (const [name, child] of Object.entries(node.properties)) {
    const childPath = path ? `${path}.${name}` : name;
    if (CITATION_NAMES.has(name.toLowerCase()) && !stats.citationPath) stats.citationPath = childPath;
    const sub = measureSchema(child, depth + 1, childPath);
    stats.count += 1 + sub.count;
    stats.depth = Math.max(stats.depth, sub.depth, depth + 1);
    stats.citationPath ??= sub.citationPath;
  }
  return stats;
}

function refineShape(schema: z.infer<typeof OutputSchemaBase>, ctx: z.RefinementCtx): void {
  if (schema.type === 'object' && !schema.properties) {
    ctx.addIssue({ code: 'custom', path: ['properties'], message: 'required when type is "object"' });
    return;
  }
  if (schema.type === 'object') checkJsonSchema(schema, ctx);
}

/** Monitor `outputSchema`. */
export const OutputSchema = OutputSchemaBase.superRefine(refineShape).describe(
  'Shape of `output.content`: `{type: "text"}` or `{type: "object", properties, required}`.',
);

/** /search `outputSchema`: adds the depth, property-count and no-citation limits. */
export const SearchOutputSchema = OutputSchemaBase.superRefine((schema, ctx) => {
  refineShape(schema, ctx);
  const stats = measureSchema(schema);
  if (stats.depth > 2) {
    ctx.addIssue({ code: 'custom', message: `nesting depth is ${stats.depth}; at most 2 levels are allowed` });
  }
  if (stats.count > 10) {
    ctx.addIssue({ code: 'custom', message: `has ${stats.count} properties in total; at most 10 are allowed` });
  }
  if (stats.citationPath) {
    ctx.addIssue({
      code: 'custom',
      path: ['properties'],
      message: `"${stats.citationPath}" asks for citations; remove it, grounding is returned in output.grounding`,
    });
  }
}).describe(
  'Shape of `output.content`: `{type: "text"}` or `{type: "object", properties, required}`; depth ≤ 2, ≤ 10 properties.',
);
