/**
 * Model-written summaries for one request: at most `SUMMARY_CONCURRENCY` model calls at once, each
 * summary cached by everything the model reads, schema-shaped summaries validated with one repair, and
 * the tokens of the summaries delivered priced. A page whose summary fails keeps its result without one;
 * a request none of whose summaries could be written fails (docs/contents.md, "Summaries").
 */
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { ChatModel, ChatRequest, TokenUsage } from '../../providers/model/types.js';
import type { CacheStore } from '../../store/cache.js';
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

/** The summaries of one request. */
export interface SummaryRun {
  /** One page's summary: text, or JSON text for a schema; `''` for a page without text; undefined when it failed. */
  summarize(page: Page, ask: SummaryAsk): Promise<string | undefined>;
  /**
   * Dollars of the model tokens of the summaries delivered (cache hits cost nothing).
   * @throws ServiceError `UNABLE_TO_GENERATE_RESPONSE` when summaries were wanted and none could be written.
   */
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
  const inFlight = new Map<string, Promise<string | undefined>>();
  const stats = { wanted: 0, delivered: 0, usage: { inputTokens: 0, outputTokens: 0 }, lastProblem: '' };
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

  const produce = async (page: Page, key: string, request: ChatRequest, ask: SummaryAsk) => {
    const hit = await cached(key);
    if (hit !== undefined) return hit;
    try {
      const { value } = await slots.run(() => write(model, request, ask.schema, ctx.signal), ctx.signal);
      stats.usage.inputTokens += value.usage.inputTokens;
      stats.usage.outputTokens += value.usage.outputTokens;
      if (cacheable) {
        await cache.set(key, { summary: value.summary }, SUMMARY_CACHE_TTL_MS).catch((err: unknown) => {
          ctx.logger.warn({ err }, 'summary cache unwritable');
        });
      }
      return value.summary;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // a ServiceError's message is written for the caller; anything else stays in the log
      const known = err instanceof ServiceError;
      stats.lastProblem = known ? err.message : 'an unexpected error (see the server log)';
      ctx.logger.warn(
        { url: page.url, writer, reason: stats.lastProblem, ...(known ? {} : { err }) },
        'summary failed; result returned without one',
      );
      return undefined;
    }
  };

  return {
    async summarize(page, ask) {
      const text = await summaryInput(page, ask.query);
      if (!text.trim()) return '';
      stats.wanted++;
      const request = summaryRequest(page, text, ask);
      // everything the model reads, and who reads it: a repeat of any of it is the same summary
      const key = createHash('sha256')
        .update(JSON.stringify([model.provider, model.model, request]))
        .digest('hex');
      let pending = inFlight.get(key);
      if (!pending) inFlight.set(key, (pending = produce(page, key, request, ask)));
      const summary = await pending;
      if (summary !== undefined) stats.delivered++;
      return summary;
    },
    finish() {
      if (stats.wanted > 0 && stats.delivered === 0) {
        throw new ServiceError(
          'UNABLE_TO_GENERATE_RESPONSE',
          `no summary could be written: the model (${model.model}) failed for every page (last: ${stats.lastProblem})`,
        );
      }
      return modelCost(model, stats.usage, deps.price);
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
  signal: AbortSignal,
): Promise<Written> {
  const reply = await model.complete(request, signal);
  if (!schema) {
    const summary = reply.content.trim();
    if (!summary)
      throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', `the model (${model.model}) returned an empty summary`);
    return { summary, usage: reply.usage };
  }
  let usage = reply.usage;
  let parsed = await parseJsonReply(reply.content, schema);
  if (parsed.problem) {
    const messages = [
      ...request.messages,
      { role: 'assistant' as const, content: reply.content },
      repairMessage(parsed.problem),
    ];
    const repaired = await model.complete({ ...request, messages }, signal);
    usage = {
      inputTokens: usage.inputTokens + repaired.usage.inputTokens,
      outputTokens: usage.outputTokens + repaired.usage.outputTokens,
    };
    parsed = await parseJsonReply(repaired.content, schema);
  }
  if (parsed.problem) {
    throw new ServiceError(
      'UNABLE_TO_GENERATE_RESPONSE',
      `the model (${model.model}) did not produce a summary matching summary.schema after one repair: ${parsed.problem}`,
    );
  }
  return { summary: JSON.stringify(parsed.value), usage };
}
