/**
 * What an agent's `tools/list` shows of an MCP tool, written beside the operation(s) the tool serves: a
 * title, a short description and the few arguments most calls need, as compact JSON Schema written for a
 * model (the tool still accepts every field of its input, validated by the operation's schema). The
 * catalog (src/mcp/catalog.generated.ts) is generated from these by `node scripts/catalog.mjs`.
 */
/** A JSON Schema fragment, as a client receives it. */
export type JsonSchema = Record<string, unknown>;

/** MCP tool annotations (hints to the client about side effects). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** The advertised text and arguments of one MCP tool. */
export interface ToolText {
  title: string;
  description: string;
  /** The advertised arguments, in the order a model reads them; each is a field of the tool's input. */
  args: Record<string, JsonSchema>;
  required?: readonly string[];
  /** The answer carries untrusted content: the description ends with the door's notice of the fences. */
  fenced?: boolean;
  /** The door pages the answer: its `cursor` and `maxTokens` are advertised after `args`. */
  paged?: boolean;
  /** A call may run as an MCP task (a long tool); without `task` it answers as before. */
  task?: boolean;
}

/**
 * One MCP tool for a family of operations (each names it in `toolGroup`), chosen by an `action`
 * argument, so a family does not flood an agent's tool list. Its `action` values and its annotations
 * come from the operations (src/mcp/catalog-build.ts).
 */
export interface ToolGroupText extends ToolText {
  name: string;
}

/** A string argument. */
export const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
/** A list of strings. */
export const strings = (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) }); // prettier-ignore
/** An integer within bounds. */
export const int = (minimum: number, maximum: number, description?: string): JsonSchema => ({ type: 'integer', minimum, maximum, ...(description ? { description } : {}) }); // prettier-ignore

/** The `contents` argument of the search tools: what to return of each result. */
export const CONTENTS_ARG: JsonSchema = {
  type: 'object',
  description: 'Per result, e.g. {"text":{"maxCharacters":4000}}, {"highlights":true}, {"summary":true}. Default: 1500 characters of text.', // prettier-ignore
};

/**
 * The hints of a tool serving several operations, from theirs: read-only if every operation is,
 * destructive if any is (a write without the hint counts as destructive, the MCP default), idempotent
 * if every one is (a read counts as idempotent), open-world if any is.
 */
export function groupHints(hints: readonly ToolHints[]): Required<ToolHints> {
  const destructive = (h: ToolHints) => !h.readOnlyHint && (h.destructiveHint ?? true);
  const idempotent = (h: ToolHints) => h.idempotentHint ?? h.readOnlyHint;
  return {
    readOnlyHint: hints.every((h) => h.readOnlyHint),
    destructiveHint: hints.some(destructive),
    idempotentHint: hints.every(idempotent),
    openWorldHint: hints.some((h) => h.openWorldHint),
  };
}
