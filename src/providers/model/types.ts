/**
 * The language-model contract synthesis uses: chat messages in, text (or JSON text) out, with token
 * counts, whole or streamed. Implemented by an OpenAI-compatible Chat Completions client and by MCP
 * sampling (the calling client's own model).
 */
import { ServiceError } from '../../errors.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Upper bound on the completion's tokens. */
  maxTokens: number;
  /** Default 0.2: answers grounded in sources, not creative writing. */
  temperature?: number;
  /**
   * Ask for a JSON object. With `schema`, servers that support structured outputs get it
   * (`response_format: json_schema`); others fall back to JSON mode (`json_object`) or to the prompt alone.
   */
  json?: { schema?: Record<string, unknown>; name?: string };
  /** Bounds the whole call, retries included (default: the provider's own). */
  timeoutMs?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResult {
  content: string;
  /** Tokens as the server counted them; estimated (≈ 4 characters a token) when it reports none. */
  usage: TokenUsage;
  /** The model that answered (as the server names it). */
  model: string;
  /** `stop`, `length`, `content_filter`, ... as the server gives it. */
  finishReason: string | null;
}

/** A piece of a streamed completion: text as it arrives, then one final piece with the usage. */
export type ChatChunk = { type: 'text'; text: string } | { type: 'done'; result: ChatResult };

/**
 * A model's failure (`UNABLE_TO_GENERATE_RESPONSE`): the message in Trawl's words only (`the language
 * model failed (HTTP 500)`), since the provider's answer may say anything; `detail` (the provider's
 * address, the status and an excerpt of its answer, keys removed) is for the server log, never an answer.
 */
export class ModelError extends ServiceError {
  readonly detail: string;

  constructor(reason: string, detail: string, options: { cause?: unknown } = {}) {
    super('UNABLE_TO_GENERATE_RESPONSE', `the language model failed (${reason})`, options);
    this.detail = detail;
  }
}

/** What the server log may say of a model's failure: its detail, or the message of any other error. */
export function failureDetail(err: unknown): string {
  if (err instanceof ModelError) return err.detail;
  return err instanceof Error ? err.message : String(err);
}

export interface ChatModel {
  /** Short stable name for logs and costs: `openai-compatible`, `mcp-sampling`. */
  readonly provider: string;
  /** The configured model name (or the client's, for sampling), for prices and logs. */
  readonly model: string;
  /**
   * One completion. Retries transient failures (429, 5xx, resets) with backoff inside the timeout.
   * Throws `ModelError` (`UNABLE_TO_GENERATE_RESPONSE`, in safe words; the provider, never its key, in
   * its `detail`) when the model fails, times out or answers garbage; a cancelled `signal` rejects with
   * its reason and stops the call.
   */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
  /** The same completion streamed: text chunks in order, then `done` with the full result and usage. */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatChunk>;
}
