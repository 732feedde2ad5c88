/**
 * A `ChatModel` for OpenAI-compatible Chat Completions APIs (OpenAI, vLLM, llama.cpp, Ollama, LM Studio,
 * gateways): `POST {baseUrl}/chat/completions`, whole or streamed, with retries and parameter fallbacks.
 */
import { ServiceError } from '../../errors.js';
import { realSleep, retryDelay, type RetryClock, type Sleep } from '../../fetch/retry.js';
import type { Logger } from '../../lib/logger.js';
import { safeExcerpt } from '../../lib/redact.js';
import type { PostJson } from '../embeddings.js';
import {
  ModelError,
  type ChatChunk,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type TokenUsage,
} from './types.js';

/** The streaming POST of src/fetch/api-client.ts (`createApiClient(...).postStream`): SSE `data:` payloads. */
export type PostStream = (
  url: string,
  body: unknown,
  options: { headers: Record<string, string>; timeoutMs: number; idleTimeoutMs?: number; signal?: AbortSignal },
) => Promise<AsyncIterable<string>>;

export interface OpenAiChatModelOptions extends RetryClock {
  /** API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (no `/chat/completions`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omit for keyless local servers. Never in errors or logs. */
  apiKey?: string;
  model: string;
  /** `createApiClient(...).postJson`: failures carry `httpStatusCode`, the error body in `message`, `retryAfterMs`. */
  post: PostJson;
  /** `createApiClient(...).postStream`, failing the same way. */
  postStream: PostStream;
  /** Bounds a call, retries included (default 60000); for a stream, the wait for headers and each silence. */
  timeoutMs?: number;
  /** Further attempts after a transient failure (default 2). */
  maxRetries?: number;
  logger?: Logger;
}

/** What some compatible servers refuse with a 400, learned once per provider instance. */
interface Quirks {
  refusedJson: Set<JsonMode>;
  maxCompletionTokens: boolean;
  noTemperature: boolean;
  noStreamOptions: boolean;
}

type JsonMode = 'json_schema' | 'json_object' | 'none';
const JSON_MODES: JsonMode[] = ['json_schema', 'json_object', 'none'];
const RETRYABLE_TAGS = new Set(['CRAWL_TIMEOUT', 'SOURCE_NOT_AVAILABLE']);
const PROVIDER = 'openai-compatible';
/** Longest detail of a failed call for the log (its status, and an excerpt of the error body within). */
const REASON_CHARS = 700;

/** The strongest JSON mode the request asks for that the server has not refused. */
function jsonModeFor(request: ChatRequest, quirks: Quirks): JsonMode | undefined {
  if (!request.json) return undefined;
  const modes = JSON_MODES.slice(request.json.schema ? 0 : 1);
  return modes.find((mode) => !quirks.refusedJson.has(mode)) ?? 'none';
}

function toWireBody(model: string, request: ChatRequest, quirks: Quirks, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: request.messages, stream };
  body[quirks.maxCompletionTokens ? 'max_completion_tokens' : 'max_tokens'] = request.maxTokens;
  if (!quirks.noTemperature) body.temperature = request.temperature ?? 0.2;
  const mode = jsonModeFor(request, quirks);
  if (mode === 'json_schema') {
    // OpenAI restricts schema names to [a-zA-Z0-9_-]{1,64}.
    const name = (request.json?.name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'response';
    body.response_format = { type: 'json_schema', json_schema: { name, schema: request.json?.schema, strict: false } };
  } else if (mode === 'json_object') body.response_format = { type: 'json_object' };
  if (stream && !quirks.noStreamOptions) body.stream_options = { include_usage: true };
  return body;
}

/**
 * Learns from a 400/422 that the server refused a parameter of the body it was sent; names the parameter
 * when the request should go again without it. Specific ones first: their messages also say "not supported".
 */
function learnRefusal(err: unknown, sent: Record<string, unknown>, quirks: Quirks): string | undefined {
  const status = (err as { httpStatusCode?: unknown }).httpStatusCode;
  if (status !== 400 && status !== 422) return undefined;
  const message = String((err as Error).message ?? '');
  if ('max_tokens' in sent && /max_completion_tokens/i.test(message)) {
    quirks.maxCompletionTokens = true;
    return 'max_tokens';
  }
  if ('temperature' in sent && /temperature/i.test(message)) {
    quirks.noTemperature = true;
    return 'temperature';
  }
  if ('stream_options' in sent && /stream_options|include_usage/i.test(message)) {
    quirks.noStreamOptions = true;
    return 'stream_options';
  }
  const format = (sent.response_format as { type?: JsonMode } | undefined)?.type;
  if (format && /response_format|json_schema|json_object|structured|not supported|unsupported/i.test(message)) {
    quirks.refusedJson.add(format);
    return format;
  }
  return undefined;
}

function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function toUsage(raw: unknown, request: ChatRequest, content: string): TokenUsage {
  const usage = (raw ?? {}) as { prompt_tokens?: unknown; completion_tokens?: unknown };
  const count = (value: unknown, estimate: () => number) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : estimate();
  return {
    inputTokens: count(usage.prompt_tokens, () =>
      estimateTokens(request.messages.reduce((sum, m) => sum + m.content.length, 0)),
    ),
    outputTokens: count(usage.completion_tokens, () => estimateTokens(content.length)),
  };
}

/**
 * A failure: `reason` in Trawl's words (the caller reads it), `detail` with what the server said (the
 * server log reads it).
 */
type Fail = (reason: string, detail: string, cause?: unknown) => ServiceError;

const errorText = (body: unknown) => {
  const error = (body as { error?: unknown } | null)?.error;
  if (!error) return undefined;
  const message = (error as { message?: unknown }).message;
  return String(typeof message === 'string' ? message : JSON.stringify(error)).slice(0, 300);
};

interface CompletionBody {
  model?: unknown;
  choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
  usage?: unknown;
}

function toResult(body: CompletionBody, request: ChatRequest, model: string, fail: Fail): ChatResult {
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
  const refusal = choice?.message?.refusal;
  if (typeof refusal === 'string' && refusal) {
    throw fail('it refused to answer', `the model refused: ${refusal.slice(0, 300)}`);
  }
  const content = choice?.message?.content;
  if (typeof content !== 'string') {
    const error = errorText(body);
    if (error) throw fail('it answered an error', `answered an error: ${error}`);
    throw fail('its answer had no content', 'answered without choices[0].message.content');
  }
  const finishReason = typeof choice?.finish_reason === 'string' ? choice.finish_reason : null;
  if (!content.trim()) {
    throw fail('it returned an empty completion', `returned an empty completion (finish_reason ${finishReason})`);
  }
  const answeredBy = typeof body.model === 'string' && body.model ? body.model : model;
  return { content, usage: toUsage(body.usage, request, content), model: answeredBy, finishReason };
}

interface StreamState {
  parts: string[];
  model: string;
  finishReason: string | null;
  usage: unknown;
  finished: boolean;
}

/** Folds one `chat.completion.chunk` into `state`; returns its text. */
function readChunk(data: string, state: StreamState, fail: Fail): string {
  let chunk: {
    model?: unknown;
    usage?: unknown;
    choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
  };
  try {
    chunk = JSON.parse(data) as typeof chunk;
  } catch (err) {
    throw fail('it streamed malformed data', `streamed malformed JSON: ${data.slice(0, 100)}`, err);
  }
  const error = errorText(chunk);
  if (error) throw fail('it streamed an error', `streamed an error: ${error}`);
  if (typeof chunk?.model === 'string' && chunk.model) state.model = chunk.model;
  if (chunk?.usage) state.usage = chunk.usage;
  const choice = Array.isArray(chunk?.choices) ? chunk.choices[0] : undefined;
  if (typeof choice?.finish_reason === 'string') state.finishReason = choice.finish_reason;
  const text = choice?.delta?.content;
  return typeof text === 'string' ? text : '';
}

function toStreamResult(state: StreamState, request: ChatRequest, fail: Fail): ChatResult {
  const content = state.parts.join('');
  if (!state.finished && state.finishReason === null) {
    throw fail('its stream ended early', 'the stream ended before the model finished');
  }
  if (!content.trim()) {
    const detail = `streamed an empty completion (finish_reason ${state.finishReason})`;
    throw fail('it streamed an empty completion', detail);
  }
  const usage = toUsage(state.usage, request, content);
  return { content, usage, model: state.model, finishReason: state.finishReason };
}

/** What one provider instance shares across its calls. */
interface CallContext {
  model: string;
  host: string;
  quirks: Quirks;
  policy: { retries: number; baseDelayMs: number; maxDelayMs: number; random: () => number };
  defaultTimeoutMs: number;
  sleep: Sleep;
  now: () => number;
  logger?: Logger;
  fail: Fail;
}

/** The backoff before the next attempt, or undefined when the failure is permanent or time is short. */
function waitBeforeRetry(ctx: CallContext, err: unknown, retry: number, remainingMs: number): number | undefined {
  const {
    httpStatusCode: status,
    tag,
    retryAfterMs,
  } = err as { httpStatusCode?: unknown; tag?: unknown; retryAfterMs?: unknown };
  const transient =
    typeof status === 'number' ? status === 408 || status === 429 || status >= 500 : RETRYABLE_TAGS.has(String(tag));
  if (!transient) return undefined;
  const retryAfter = status === 429 && typeof retryAfterMs === 'number' ? retryAfterMs : undefined;
  return retryDelay({ ...ctx.policy, maxRetryAfterMs: remainingMs }, retry, remainingMs, retryAfter);
}

/** Sends until an answer, a permanent failure or the deadline; `send` gets the wire body and the time left. */
async function withRetries<T>(
  ctx: CallContext,
  request: ChatRequest,
  stream: boolean,
  signal: AbortSignal | undefined,
  send: (body: Record<string, unknown>, remainingMs: number) => Promise<T>,
): Promise<T> {
  const { model, host, logger, fail } = ctx;
  const timeoutMs = request.timeoutMs ?? ctx.defaultTimeoutMs;
  const deadline = ctx.now() + timeoutMs;
  for (let retry = 0; ;) {
    signal?.throwIfAborted();
    const remainingMs = deadline - ctx.now();
    if (remainingMs <= 0) {
      const words = `no answer within ${timeoutMs} ms (${retry + 1} attempts)`;
      throw fail(words, words);
    }
    const body = toWireBody(model, request, ctx.quirks, stream);
    try {
      return await send(body, remainingMs);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof ServiceError) throw err;
      const refused = learnRefusal(err, body, ctx.quirks);
      if (refused) {
        logger?.info({ provider: host, model, refused }, 'model server refused a parameter; asking without it');
        continue;
      }
      const waitMs = waitBeforeRetry(ctx, err, retry, deadline - ctx.now());
      if (waitMs === undefined) {
        throw fail(requestReason(err), `request failed: ${(err as Error).message ?? String(err)}`, err);
      }
      const status = (err as { httpStatusCode?: unknown }).httpStatusCode;
      logger?.warn({ provider: host, model, status, retry: retry + 1, waitMs }, 'model call failed; retrying');
      await ctx.sleep(waitMs, signal).catch((sleepErr: unknown) => {
        throw signal?.aborted ? signal.reason : sleepErr;
      });
      retry++;
    }
  }
}

/** Turns SSE payloads into text chunks and a final `done`; leaving early closes `events` (and the request). */
async function* toChunks(
  ctx: CallContext,
  events: AsyncIterable<string>,
  request: ChatRequest,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatChunk> {
  const state: StreamState = { parts: [], model: ctx.model, finishReason: null, usage: undefined, finished: false };
  try {
    for await (const data of events) {
      if (data.trim() === '[DONE]') {
        state.finished = true;
        break;
      }
      const text = readChunk(data, state, ctx.fail);
      if (text) {
        state.parts.push(text);
        yield { type: 'text', text };
      }
    }
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof ServiceError) throw err;
    throw ctx.fail(requestReason(err), `the stream failed: ${(err as Error).message ?? String(err)}`, err);
  }
  yield { type: 'done', result: toStreamResult(state, request, ctx.fail) };
}

/** A failed request in Trawl's words: its HTTP status, or what kind of failure it was (never its text). */
function requestReason(err: unknown): string {
  const { httpStatusCode: status, tag } = err as { httpStatusCode?: unknown; tag?: unknown };
  if (typeof status === 'number') return `HTTP ${status}`;
  if (tag === 'CRAWL_TIMEOUT' || tag === 'CRAWL_LIVECRAWL_TIMEOUT') return 'it did not answer in time';
  if (tag === 'SOURCE_NOT_AVAILABLE' || tag === 'CRAWL_NOT_FOUND') return 'it could not be reached';
  if (tag === 'CRAWL_TOO_LARGE') return 'its answer was too large';
  return 'the request failed';
}

/**
 * A `ChatModel` speaking OpenAI Chat Completions. Retries 408/429/5xx, resets and timeouts with backoff
 * and jitter (a 429's Retry-After when it fits in the time left), never other 4xx. Parameters a server
 * refuses with 400/422 (json_schema → json_object → prompt only, `stream_options`, `max_tokens`,
 * `temperature`) are dropped and remembered for the instance's later calls. Throws `ModelError`
 * (`UNABLE_TO_GENERATE_RESPONSE`) whose message says what failed in Trawl's words (the status, a
 * time-out) and whose `detail` names host, model, status and an excerpt of the answer for the log, never
 * the key; an aborted signal rejects with its reason and closes the request.
 */
export function createOpenAiChatModel(options: OpenAiChatModelOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const host = URL.canParse(url) ? new URL(url).host : 'an invalid base URL';
  const { model, apiKey } = options;
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  // Servers may echo what they were sent; the key must not travel on in a message (nor reach a log).
  const ctx: CallContext = {
    model,
    host,
    quirks: { refusedJson: new Set(), maxCompletionTokens: false, noTemperature: false, noStreamOptions: false },
    policy: {
      retries: options.maxRetries ?? 2,
      baseDelayMs: 500,
      maxDelayMs: 8_000,
      random: options.random ?? Math.random,
    },
    defaultTimeoutMs: options.timeoutMs ?? 60_000,
    sleep: options.sleep ?? realSleep,
    now: options.now ?? Date.now,
    logger: options.logger,
    fail: (reason, detail, cause) => {
      const raw = `model ${model} at ${host}: ${detail}`;
      const text = safeExcerpt(raw, [apiKey], REASON_CHARS);
      // a cause whose message held the key (or a long body) would carry it into logs: keep it only when clean
      return new ModelError(reason, text, { cause: text === raw ? cause : undefined });
    },
  };
  return {
    provider: PROVIDER,
    model,
    async complete(request, signal) {
      const body = await withRetries(ctx, request, false, signal, (wire, timeoutMs) =>
        options.post<CompletionBody>(url, wire, { headers, timeoutMs, signal }),
      );
      return toResult(body, request, model, ctx.fail);
    },
    async *stream(request, signal) {
      const idleTimeoutMs = request.timeoutMs ?? ctx.defaultTimeoutMs;
      const events = await withRetries(ctx, request, true, signal, (wire, timeoutMs) =>
        options.postStream(url, wire, { headers, timeoutMs, idleTimeoutMs, signal }),
      );
      yield* toChunks(ctx, events, request, signal);
    },
  };
}
