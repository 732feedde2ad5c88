/**
 * The messages synthesis sends a model: numbered sources (query-focused highlights, not whole pages, to
 * keep answers cheap), the question, the caller's instructions, and the answer format.
 */
import type { ChatMessage } from '../../providers/model/types.js';
import { mapRefs } from '../../lib/json-schema-refs.js';
import type { Source } from './grounding.js';

/** What the caller asked the answer to be. */
export type AnswerShape =
  | { type: 'text'; description?: string }
  | {
      type: 'object';
      description?: string;
      properties: Record<string, unknown>;
      required?: string[];
      additionalProperties?: boolean;
    };

const RULES = `You answer a question using only the numbered sources below.
- Use only facts stated in the sources; never add outside knowledge.
- When the sources do not answer the question, say so plainly.
- Be concise and specific: names, numbers and dates as the sources give them.`;

const TEXT_FORMAT = `Answer in plain text (no Markdown headings). Put the numbers of the sources that support each
sentence in brackets right after it, like [1] or [2, 3].`;

const OBJECT_FORMAT = `Answer with one JSON object and nothing else, of the form
{"content": <the answer, following the JSON Schema below>, "citations": {"<field path>": [<source numbers>]}}.
In "citations", give for every field of "content" the numbers of the sources that support it; paths look
like "name", "items[0].title". Use null (where the schema allows it) for what the sources do not say.`;

/** The sources as the model reads them: number, title, URL, date, evidence. */
export function renderSources(sources: readonly Source[]): string {
  return sources
    .map((s) => {
      const head = `[${s.n}] ${s.title || s.url}\n${s.url}${s.publishedDate ? ` (${s.publishedDate.slice(0, 10)})` : ''}`;
      return `${head}\n${s.evidence.trim() || '(no text available)'}`;
    })
    .join('\n\n');
}

/** Where the caller's schema sits in the answer envelope. */
const CONTENT_POINTER = '/properties/content';

/**
 * The caller's object closed to other properties, as Trawl asks unless the caller says otherwise: every
 * name it requires is declared (unconstrained where the caller did not describe it), so closing it never
 * makes a required property impossible.
 */
function closed(shape: Extract<AnswerShape, { type: 'object' }>): Record<string, unknown> {
  if (shape.additionalProperties !== undefined) return { additionalProperties: shape.additionalProperties };
  const properties = { ...(shape.properties ?? {}) };
  for (const name of Array.isArray(shape.required) ? shape.required : []) {
    if (typeof name === 'string' && !Object.hasOwn(properties, name)) properties[name] = {};
  }
  return { properties, additionalProperties: false };
}

/**
 * The schema of the answer object in `OBJECT_FORMAT`: the caller's schema under `content`, citations
 * beside it. The caller's `$defs` and `definitions` move to the envelope's root, so `#/$defs/x` still
 * resolves (and reads as model servers expect it); other local references (`#`, `#/properties/…`) are
 * rebased under `content`. Its `$id` and `$schema` are left out: they belong to a root.
 */
export function answerEnvelopeSchema(shape: Extract<AnswerShape, { type: 'object' }>): Record<string, unknown> {
  const { description: _d, $defs, definitions, $id: _i, $schema: _s, ...schema } = shape as Record<string, unknown>;
  const rebase = (ref: string) =>
    ref.startsWith('#/$defs/') || ref.startsWith('#/definitions/') || !ref.startsWith('#')
      ? ref
      : `#${CONTENT_POINTER}${ref.slice(1)}`;
  const content = mapRefs({ ...schema, ...closed(shape) }, rebase);
  const hoisted = (defs: unknown) =>
    typeof defs === 'object' && defs !== null
      ? Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, mapRefs(def, rebase)]))
      : defs;
  return {
    type: 'object',
    properties: {
      content,
      citations: { type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } } },
    },
    required: ['content', 'citations'],
    additionalProperties: false,
    ...($defs !== undefined ? { $defs: hoisted($defs) } : {}),
    ...(definitions !== undefined ? { definitions: hoisted(definitions) } : {}),
  };
}

/** System and user messages for an answer of `shape` to `query` from `sources`. */
export function answerMessages(
  query: string,
  sources: readonly Source[],
  shape: AnswerShape,
  systemPrompt?: string,
): ChatMessage[] {
  const format = shape.type === 'text' ? TEXT_FORMAT : OBJECT_FORMAT;
  const guidance = shape.description ? `\nWhat the answer should be: ${shape.description}` : '';
  const schema =
    shape.type === 'object'
      ? `\n\nJSON Schema of "content":\n${JSON.stringify({ ...shape, description: undefined })}`
      : '';
  const system = `${RULES}\n\n${format}${guidance}${systemPrompt ? `\n\nInstructions from the caller:\n${systemPrompt}` : ''}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: `Sources:\n\n${renderSources(sources)}\n\nQuestion: ${query}${schema}` },
  ];
}

/** The follow-up asking a model to fix an object answer that failed validation. */
export function repairMessage(problems: string): ChatMessage {
  return {
    role: 'user',
    content: `That answer is not valid: ${problems}. Reply with the corrected JSON object only, in the same form.`,
  };
}
