/**
 * Synthesis: an answer to a query from numbered sources, as text or as JSON shaped by the caller's
 * schema, with grounding per field; written by the operator's model, the calling client's model (MCP
 * sampling), or, for text without any model, extracted from the sources. docs/synthesis.md.
 */
import { ServiceError } from '../../errors.js';
import type { Logger } from '../../lib/logger.js';
import type { ChatModel, ChatRequest, TokenUsage } from '../../providers/model/types.js';
import type { ServiceContext } from '../context.js';
import { createMarkerFilter, readCitations } from './citations.js';
import { extractiveAnswer } from './extractive.js';
import { groundField, groundObject, type GroundingEntry, type Source } from './grounding.js';
import { answerEnvelopeSchema, answerMessages, repairMessage, type AnswerShape } from './prompt.js';
import { planQueries } from './planner.js';
import { chooseModel, modelCost } from './model-choice.js';
import type { ModelPrice } from './pricing.js';
import { parseJsonReply } from './validate.js';

/** An object answer as the model returns it: the content, and the sources of each field. */
type Envelope = { content: Record<string, unknown>; citations: Record<string, unknown> };

export interface SynthesisRequest {
  query: string;
  shape: AnswerShape;
  systemPrompt?: string;
  sources: Source[];
}

export interface SynthesisResult {
  content: string | Record<string, unknown>;
  grounding: GroundingEntry[];
  /** Tokens the model read and wrote (zero for an extractive answer). */
  usage: TokenUsage;
  /** Who wrote it: `<provider>:<model>`, or `extractive`. */
  writer: string;
  costDollars: number;
}

/** A streamed answer: text as it is written, then the whole result. */
export type SynthesisChunk = { type: 'text'; text: string } | { type: 'done'; result: SynthesisResult };

export interface SynthesisDeps {
  /** The operator's model (`TRAWL_MODEL_*`), if one is configured. */
  model?: ChatModel;
  /** Use the calling MCP client's model even when the operator configured one (`TRAWL_MODEL_PREFER=client`). */
  preferClientModel?: boolean;
  /** Configured token prices (dollars per million); unset parts fall back to known list prices. */
  price?: Partial<ModelPrice>;
  /** Completion tokens an answer may take (TRAWL_MODEL_MAX_TOKENS). */
  maxTokens: number;
  logger: Logger;
}

export interface Synthesis {
  /** The model that would answer this call, if any. */
  modelFor(ctx: ServiceContext): ChatModel | undefined;
  /** The whole answer. Throws FEATURE_DISABLED (an object answer with no model), UNABLE_TO_GENERATE_RESPONSE. */
  answer(request: SynthesisRequest, ctx: ServiceContext): Promise<SynthesisResult>;
  /** The answer streamed (an object answer arrives whole, as one text piece of JSON). Same errors. */
  stream(request: SynthesisRequest, ctx: ServiceContext): AsyncIterable<SynthesisChunk>;
  /**
   * Searches a model plans for a deep search (`seen`: the results so far, for a follow-up round);
   * none without a model or when planning fails. Never throws but for cancellation.
   */
  plan(
    request: { query: string; max: number; systemPrompt?: string; seen?: string[] },
    ctx: ServiceContext,
  ): Promise<{ queries: string[]; costDollars: number }>;
}

const ZERO: TokenUsage = { inputTokens: 0, outputTokens: 0 };
const add = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

export function createSynthesis(deps: SynthesisDeps): Synthesis {
  const { maxTokens } = deps;
  const modelFor = (ctx: ServiceContext) =>
    chooseModel({ operator: deps.model, client: ctx.clientModel, preferClient: deps.preferClientModel }, ctx);
  const costOf = (model: ChatModel, usage: TokenUsage) => modelCost(model, usage, deps.price);
  const finish = (
    model: ChatModel,
    content: SynthesisResult['content'],
    grounding: GroundingEntry[],
    usage: TokenUsage,
  ): SynthesisResult => ({
    content,
    grounding,
    usage,
    writer: `${model.provider}:${model.model}`,
    costDollars: costOf(model, usage),
  });

  const objectAnswer = async (model: ChatModel, req: SynthesisRequest, ctx: ServiceContext) => {
    const shape = req.shape as Extract<AnswerShape, { type: 'object' }>;
    const envelope = answerEnvelopeSchema(shape);
    const messages = answerMessages(req.query, req.sources, shape, req.systemPrompt);
    const call: ChatRequest = { messages, maxTokens, json: { schema: envelope, name: 'answer' } };
    let reply = await model.complete(call, ctx.signal);
    let usage = reply.usage;
    let parsed = await parseJsonReply<Envelope>(reply.content, envelope);
    if (parsed.problem) {
      ctx.logger.info({ problem: parsed.problem.text }, 'model answer failed validation; asking once for a repair');
      const repair = {
        ...call,
        messages: [
          ...messages,
          { role: 'assistant' as const, content: reply.content },
          repairMessage(parsed.problem.text),
        ],
      };
      reply = await model.complete(repair, ctx.signal);
      usage = add(usage, reply.usage);
      parsed = await parseJsonReply<Envelope>(reply.content, envelope);
    }
    if (parsed.problem || !parsed.value) {
      const problem = parsed.problem ?? { text: 'no value', safe: 'no value' };
      ctx.logger.warn({ model: model.model, problem: problem.text }, 'model answer failed validation after a repair');
      throw new ServiceError(
        'UNABLE_TO_GENERATE_RESPONSE',
        `the language model's answer did not match outputSchema after one repair: ${problem.safe}`,
      );
    }
    const { content, citations } = parsed.value;
    return finish(model, content, groundObject(content, citations, req.sources), usage);
  };

  const textAnswer = async (model: ChatModel, req: SynthesisRequest, ctx: ServiceContext) => {
    const messages = answerMessages(req.query, req.sources, req.shape, req.systemPrompt);
    const reply = await model.complete({ messages, maxTokens }, ctx.signal);
    const { text, cited } = readCitations(reply.content);
    const content = text.trim();
    if (!content) throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', 'the language model returned an empty answer');
    return finish(model, content, [groundField('content', content, cited, req.sources)], reply.usage);
  };

  const extractive = (req: SynthesisRequest): SynthesisResult => {
    const picked = extractiveAnswer(req.query, req.sources);
    const content = picked.length
      ? picked.map((p) => p.sentence).join(' ')
      : 'The sources found do not contain an answer to this query.';
    const grounding = [
      groundField(
        'content',
        content,
        picked.map((p) => p.source),
        req.sources,
      ),
    ];
    return { content, grounding, usage: ZERO, writer: 'extractive', costDollars: 0 };
  };

  const noModelForObject = () =>
    new ServiceError(
      'FEATURE_DISABLED',
      'outputSchema of type "object" needs a language model: set TRAWL_MODEL_BASE_URL and TRAWL_MODEL (and TRAWL_MODEL_API_KEY if the server needs one), or call through an MCP client that supports sampling. Without a model, use {"type": "text"} for an extractive answer.',
      { field: 'outputSchema' },
    );

  const answer = async (req: SynthesisRequest, ctx: ServiceContext): Promise<SynthesisResult> => {
    const model = modelFor(ctx);
    if (!model) {
      if (req.shape.type === 'object') throw noModelForObject();
      return extractive(req);
    }
    return req.shape.type === 'object' ? objectAnswer(model, req, ctx) : textAnswer(model, req, ctx);
  };

  return {
    modelFor,
    answer,
    async plan(request, ctx) {
      const model = modelFor(ctx);
      if (!model) return { queries: [], costDollars: 0 };
      const plan = await planQueries(model, request, ctx);
      return { queries: plan.queries, costDollars: costOf(model, plan.usage) };
    },
    async *stream(req, ctx) {
      const model = modelFor(ctx);
      if (!model || req.shape.type === 'object') {
        const result = await answer(req, ctx);
        const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
        yield { type: 'text', text };
        yield { type: 'done', result };
        return;
      }
      const messages = answerMessages(req.query, req.sources, req.shape, req.systemPrompt);
      const markers = createMarkerFilter();
      let written = '';
      for await (const chunk of model.stream({ messages, maxTokens }, ctx.signal)) {
        if (chunk.type === 'text') {
          const text = markers.push(chunk.text);
          written += text;
          if (text) yield { type: 'text', text };
          continue;
        }
        const rest = markers.end();
        written += rest;
        if (rest) yield { type: 'text', text: rest };
        const content = written.trim();
        const grounding = [groundField('content', content, markers.cited, req.sources)];
        yield { type: 'done', result: finish(model, content, grounding, chunk.result.usage) };
      }
    },
  };
}
