/**
 * Embedding providers: the `Embedder` contract that highlights (and later search) use, and a client for
 * OpenAI-compatible `POST {baseUrl}/embeddings` APIs (OpenAI, Azure-style gateways, vLLM, Ollama, TEI).
 */
import { ServiceError } from '../errors.js';
import { safeExcerpt } from '../lib/redact.js';

/** Turns texts into vectors, one per text, in the same order. */
export interface Embedder {
  /** The model name (part of cache keys and logs). */
  readonly model: string;
  /** One vector per input text, in input order; throws `ServiceError` (`UNABLE_TO_GENERATE_RESPONSE`) when the provider fails. */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/** The outbound JSON POST of src/fetch/api-client.ts (`createApiClient(...).postJson`). */
export type PostJson = <T>(
  url: string,
  body: unknown,
  options: { headers: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
) => Promise<T>;

export interface OpenAiEmbedderOptions {
  /** API root, e.g. `https://api.openai.com/v1` (no trailing `/embeddings`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omitted for keyless local servers. */
  apiKey?: string;
  model: string;
  post: PostJson;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Per request (default 30000 ms). */
  timeoutMs?: number;
  /** Output dimensions, for models that can shorten their vectors. */
  dimensions?: number;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

// Providers reject empty strings; a single space embeds as "nothing" and keeps positions aligned.
const nonEmpty = (text: string) => (text.trim().length > 0 ? text : ' ');

function toVectors(response: EmbeddingsResponse, count: number, model: string): number[][] {
  const data = response?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw new ServiceError(
      'UNABLE_TO_GENERATE_RESPONSE',
      `embeddings provider (${model}) returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} inputs`,
    );
  }
  const vectors = new Array<number[]>(count);
  data.forEach((item, position) => {
    const index = typeof item.index === 'number' ? item.index : position;
    const embedding = item.embedding;
    if (index < 0 || index >= count || !Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number')) {
      throw new ServiceError(
        'UNABLE_TO_GENERATE_RESPONSE',
        `embeddings provider (${model}) returned a malformed vector at index ${index}`,
      );
    }
    vectors[index] = embedding as number[];
  });
  if (vectors.some((v) => v === undefined)) {
    throw new ServiceError('UNABLE_TO_GENERATE_RESPONSE', `embeddings provider (${model}) returned duplicate indexes`);
  }
  return vectors;
}

/** Longest excerpt of a provider's error (its status line and body) kept in a message. */
const REASON_CHARS = 300;

/**
 * The error of a failed provider call: its status and a short, sanitised reason. A provider may echo
 * the request (its key) in an error body, so the key and anything key-like are removed, and the raw
 * error is kept as the cause only when nothing had to be removed (a cause's message reaches logs).
 */
function failure(model: string, err: unknown, apiKey: string | undefined): ServiceError {
  const raw = err instanceof Error ? err.message : String(err);
  const reason = safeExcerpt(raw, [apiKey], REASON_CHARS);
  return new ServiceError('UNABLE_TO_GENERATE_RESPONSE', `embeddings provider (${model}) failed: ${reason}`, {
    cause: reason === raw ? err : undefined,
  });
}

/**
 * An `Embedder` for the OpenAI embeddings wire format: `{model, input: string[]}` →
 * `{data: [{index, embedding}]}`, sent in batches (sequentially, to stay within provider rate limits)
 * and put back in input order by `index`. The key goes only into the Authorization header.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const timeoutMs = options.timeoutMs ?? 30_000;
  const model = options.model;
  const send = async (body: unknown, signal?: AbortSignal): Promise<EmbeddingsResponse> => {
    try {
      return await options.post<EmbeddingsResponse>(url, body, { headers, timeoutMs, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw failure(model, err, options.apiKey);
    }
  };
  return {
    model,
    async embed(texts, signal) {
      const out: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        signal?.throwIfAborted();
        const input = texts.slice(start, start + batchSize).map(nonEmpty);
        const body = { model, input, ...(options.dimensions ? { dimensions: options.dimensions } : {}) };
        out.push(...toVectors(await send(body, signal), input.length, model));
      }
      return out;
    },
  };
}
