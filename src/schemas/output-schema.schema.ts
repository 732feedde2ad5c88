/**
 * `outputSchema` of /search and monitors: plain text (`{type: 'text'}`) or a small JSON object schema.
 * The search form is limited to nesting depth 2 and 10 properties in total, and must not ask for
 * citations (grounding is returned on its own).
 */
import { z } from 'zod';
import { checkJsonSchema, resolveLocalRef } from './json-schema.js';

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
  /** A `$ref` that leads back to a schema it is inside of, with where it is. */
  recursiveRef?: string;
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose subschemas describe the same value (their properties count at the same depth). */
const SAME_LEVEL = ['items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems'];
const SAME_LEVEL_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose subschemas describe the values of an object's other members (one level down). */
const MEMBER_LEVEL = ['additionalProperties', 'unevaluatedProperties'];

/**
 * Depth and total property count of an object schema, with local `$ref`s followed (a definition counts
 * wherever it is used); the root's own properties are depth 1. `anyOf`, `items` and the like count at
 * their schema's level, `additionalProperties` one level down. A reference that leads back into itself is
 * reported as `recursiveRef` (its expansion has no depth). Each schema node is measured once.
 */
export function measureSchema(schema: unknown): ShapeStats {
  const root = schema;
  const memo = new Map<Node, ShapeStats>();
  const open = new Set<Node>();
  let recursiveRef: string | undefined;
  const measure = (node: unknown, path: string): ShapeStats => {
    const stats: ShapeStats = { depth: 0, count: 0 };
    if (!isNode(node) || recursiveRef) return stats;
    const known = memo.get(node);
    if (known) return known;
    open.add(node);
    const merge = (sub: ShapeStats, levels: number, prefix: string) => {
      stats.count += sub.count;
      stats.depth = Math.max(stats.depth, sub.depth + levels);
      if (sub.citationPath && !stats.citationPath) stats.citationPath = prefix + sub.citationPath;
    };
    if (typeof node.$ref === 'string') {
      const target = resolveLocalRef(root, node.$ref);
      if (isNode(target) && open.has(target)) recursiveRef ??= `"${node.$ref}" (at ${path || 'the root'})`;
      else merge(measure(target, path), 0, '');
    }
    if (isNode(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const childPath = path ? `${path}.${name}` : name;
        if (CITATION_NAMES.has(name.toLowerCase()) && !stats.citationPath) stats.citationPath = name;
        const sub = measure(child, childPath);
        stats.count += 1;
        merge(sub, 1, `${name}.`);
      }
    }
    for (const key of SAME_LEVEL) if (isNode(node[key])) merge(measure(node[key], `${path}[]`), 0, '');
    for (const key of SAME_LEVEL_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) for (const child of list) merge(measure(child, path), 0, '');
    }
    for (const key of MEMBER_LEVEL) if (isNode(node[key])) merge(measure(node[key], `${path}.*`), 1, '*.');
    open.delete(node);
    memo.set(node, stats);
    return stats;
  };
  const stats = measure(schema, '');
  return recursiveRef ? { ...stats, recursiveRef } : stats;
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

/**
 * /search `outputSchema`: adds the depth, property-count and no-citation limits, counted with local
 * references followed; a recursive reference is refused.
 */
export const SearchOutputSchema = OutputSchemaBase.superRefine((schema, ctx) => {
  refineShape(schema, ctx);
  const stats = measureSchema(schema);
  if (stats.recursiveRef) {
    ctx.addIssue({
      code: 'custom',
      message: `$ref ${stats.recursiveRef} is recursive; /search allows 2 levels of nesting, so its outputSchema may not refer back to itself`,
    });
    return;
  }
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
