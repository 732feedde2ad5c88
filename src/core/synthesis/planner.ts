/**
 * Query planning for the deep search types: a model turns the question into a few searches that cover
 * it (phrasings, sub-questions, the entities it names) and, for `deep-reasoning`, reads what the first
 * round found and asks for what is still missing. A planning failure costs depth, never the search.
 */
import type { ChatModel, TokenUsage } from '../../providers/model/types.js';
import type { ServiceContext } from '../context.js';
import { stripJsonFence } from './validate.js';

export interface Plan {
  queries: string[];
  usage: TokenUsage;
}

const PLAN_RULES = `You plan web searches for a research question. Reply with one JSON object {"queries": [...]}:
short search-engine queries (2 to 8 words each) that together cover the question: other phrasings,
its sub-questions, and the names, products or terms it involves. Do not repeat the question itself.`;

const FOLLOW_UP_RULES = `You review search results for a research question. Reply with one JSON object {"queries": [...]}:
short search-engine queries for what the results below do not yet cover. Reply {"queries": []} when
they already answer the question.`;

const schemaFor = (max: number) => ({
  type: 'object',
  properties: { queries: { type: 'array', items: { type: 'string' }, maxItems: max } },
  required: ['queries'],
  additionalProperties: false,
});

const NONE: Plan = { queries: [], usage: { inputTokens: 0, outputTokens: 0 } };

/**
 * Up to `max` queries for `query` (`seen`: the results so far, each its title and matching passages, for
 * a follow-up round), distinct from the question and from each other. Never throws but for cancellation.
 */
export async function planQueries(
  model: ChatModel,
  request: { query: string; max: number; systemPrompt?: string; seen?: string[] },
  ctx: ServiceContext,
): Promise<Plan> {
  const { query, max, systemPrompt, seen } = request;
  if (max <= 0) return NONE;
  const rules = seen ? FOLLOW_UP_RULES : PLAN_RULES;
  const system = `${rules}\nAt most ${max} queries.${systemPrompt ? `\n\nInstructions from the caller:\n${systemPrompt}` : ''}`;
  const found = seen?.length ? `\n\nResults so far:\n${seen.map((t, i) => `${i + 1}. ${t}`).join('\n')}` : '';
  try {
    const reply = await model.complete(
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: `Question: ${query}${found}` },
        ],
        maxTokens: 300,
        json: { schema: schemaFor(max), name: 'plan' },
      },
      ctx.signal,
    );
    return { queries: cleanQueries(reply.content, query, max), usage: reply.usage };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.logger.warn({ reason: (err as Error).message }, 'query planning failed; searching without it');
    return NONE;
  }
}

/** The planned queries of a reply: strings, trimmed, new, at most `max`. */
function cleanQueries(text: string, question: string, max: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonFence(text));
  } catch {
    return [];
  }
  const list = (parsed as { queries?: unknown })?.queries;
  if (!Array.isArray(list)) return [];
  const seen = new Set([question.trim().toLowerCase()]);
  const out: string[] = [];
  for (const q of list) {
    if (typeof q !== 'string') continue;
    const clean = q.trim().slice(0, 200);
    if (!clean || seen.has(clean.toLowerCase())) continue;
    seen.add(clean.toLowerCase());
    out.push(clean);
    if (out.length === max) break;
  }
  return out;
}
