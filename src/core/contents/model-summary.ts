/**
 * Model-written summaries for one request: at most `SUMMARY_CONCURRENCY` model calls at once, each
 * summary cached by everything the model reads, schema-shaped summaries validated with one repair, and
 * the tokens of the summaries delivered priced. A page whose summary fails keeps its result without one,
 * and says why in safe words (its status `message`, a `MODEL_FAILED` warning); the request never fails
 * for it (docs/contents.md, "Summaries").
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import { warning } from '../warnings.js';
import type { ChatModel, ChatRequest, TokenUsage } from '../../providers/model/types.js';
import type { CacheStore } from '../../store/contracts/cache.js';
import type { ServiceContext } from '../context.js';
import { modelCost } from '../synthesis/model-choice.js';
import type { ModelPrice } from '../synthesis/pricing.js';
import { repairMessage } from '../synthesis/prompt.js';
import { parseJsonReply } from '../synthesis/validate.js';
import { createAdmissionQueue } from './admission.js';
import type { Page } from './page.js';
import { SUMMARY_PROMPT_VERSION, summaryInput, summaryRequest, type SummaryAsk } from './summary-prompt.js';

/** Model calls of one request in flight at once (repairs included); the rest wait their turn. */
export const SUMMARY_CONCURRENCY = 4;
/** How long a cached summary is reused; the page text is part of its key, so a changed page misses anyway. */
export const SUMMARY_CACHE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface SummaryDeps {
  cache: CacheStore;
  /** Configured token prices (dollars per million); unset parts fall back to list prices. */
  price?: Partial<ModelPrice>;
}

/** A summary that could not be written: why, in words the caller may read (no provider's words). */
export interface SummaryFailure {
  failed: string;
}

/** The summaries of one request. */
export interface SummaryRun {
  /** One page's summary: text, or JSON text for a schema; `''` for a page without text; why, when it failed. */
  summarize(page: Page, ask: SummaryAsk): Promise<string | SummaryFailure>;
  /** Dollars of the model tokens of the summaries delivered (cache hits and failures cost nothing). */
  finish(): number;
}

interface Written {
  summary: string;
  usage: TokenUsage;
}

/** Starts the summaries of one request, written by `model`. */
export function startSummaries(model: ChatModel, deps: SummaryDeps, ctx: ServiceContext): SummaryRun {
  const cache = deps.cache.namespace<{ summary: string }>('summary', SUMMARY_PROMPT_VERSION);
  const slots = createAdmissionQueue(SUMMARY_CONCURRENCY);
  const inFlight = new Map<string, Promise<string | SummaryFailure>>();
  const usage = { inputTokens: 0, outputTokens: 0 };
  const writer = `${model.provider}:${model.model}`;
  // The client's model (sampling) is named only "client": a key cannot tell one client's model from
  // another's, and each of its calls is the client's to approve and pay; so it is never cached.
  const cacheable = model.provider !== 'mcp-sampling';

  const cached = async (key: string) => {
    if (!cacheable) return undefined;
    try {
      return (await cache.get(key))?.summary;
    } catch (err) {
      ctx.logger.warn({ err }, 'summary cache unreadable; asking the model');
      return undefined;
    }
  };

  const produce = async (
    page: Page,
    key: string,
    request: ChatRequest,
    ask: SummaryAsk,
  ): Promise<string | SummaryFailure> => {
    const hit = await cached(key);
    if (hit !== undefined) return hit;
    try {
      const { value } = await slots.run(ctx.requestId, () => write(model, request, ask.schema, ctx), ctx.signal);
      usage.inputTokens += value.usage.inputTokens;
      usage.outputTokens += value.usage.outputTokens;
      if (cacheable) {
        await cache.set(key, { summary: value.summary }, SUMMARY_CACHE_TTL_MS).catch((err: unknown) => {
          ctx.logger.warn({ err }, 'summary cache unwritable');
        });
      }
      return value.summary;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // a ServiceError's message is written for the caller in safe words; anything else stays in the log
      const known = err instanceof ServiceError;
      const failed = known
        ? err.message
        : `an unexpected error; the server log has the details under requestId ${ctx.requestId}`;
      ctx.logger.warn(
        { url: page.url, writer, reason: failed, ...(known ? {} : { err }) },
        'summary failed; result returned without one',
      );
      ctx.onWarning?.(warning('MODEL_FAILED', failed));
      return { failed };
    }
  };

  return {
    async summarize(page, ask) {
      const text = await summaryInput(page, ask.query);
      if (!text.trim()) return '';
      const request = summaryRequest(page, text, ask);
      // everything the model reads, and who reads it: a repeat of any of it is the same summary
      const key = createHash('sha256')
        .update(JSON.stringify([model.provider, model.model, request]))
        .digest('hex');
      let pending = inFlight.get(key);
      if (!pending) inFlight.set(key, (pending = produce(page, key, request, ask)));
      return pending;
    },
    finish() {
      return modelCost(model, usage, deps.price);
    },
  };
}

/**
 * One summary from the model. A schema-shaped one must parse and follow the schema; an invalid one is
 * sent back once with what is wrong.
 * @throws ServiceError `UNABLE_TO_GENERATE_RESPONSE` (the model failed, answered nothing, or no valid JSON after a repair).
 */
async function write(
  model: ChatModel,
  request: ChatRequest,
  schema: Record<string, unknown> | undefined,
  ctx: ServiceContext,
): Promise<Written> {
  const { signal } = ctx;
  const reply = await model.complete(request, signal);
  if (!schema) {
    const summary = reply.content.trim();
    if (!summary) throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', 'the language model returned an empty summary');
    return { summary, usage: reply.usage };
  }
  let usage = reply.usage;
  let parsed = await parseJsonReply(reply.content, schema);
  if (parsed.problem) {
    const messages = [
      ...request.messages,
      { role: 'assistant' as const, content: reply.content },
      repairMessage(parsed.problem.text),
    ];
    const repaired = await model.complete({ ...request, messages }, signal);
    usage = {
      inputTokens: usage.inputTokens + repaired.usage.inputTokens,
      outputTokens: usage.outputTokens + repaired.usage.outputTokens,
    };
    parsed = await parseJsonReply(repaired.content, schema);
  }
  if (parsed.problem) {
    const { text, safe } = parsed.problem;
    ctx.logger.warn({ model: model.model, problem: text }, 'model summary failed validation after a repair');
    throw new ServiceError(
      'UNABLE_TO_GENERATE_RESPONSE',
      `the language model's summary did not match summary.schema after one repair: ${safe}`,
    );
  }
  return { summary: JSON.stringify(parsed.value), usage };
}
