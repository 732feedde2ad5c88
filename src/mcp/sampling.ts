/**
 * The calling MCP client's own model as a `ChatModel`, through `sampling/createMessage`: answers work
 * inside an agent with no model configured on Trawl. The client (and its user) approve and pay for it.
 */
import { ServiceError } from '../errors.js';
import type { ServiceContext } from '../core/context.js';
import type { Extra } from './types.js';

// the model types as the core takes them (the door does not reach into providers/)
type ChatModel = NonNullable<ServiceContext['clientModel']>;
type ChatRequest = Parameters<ChatModel['complete']>[0];
type ChatResult = Awaited<ReturnType<ChatModel['complete']>>;
type ChatChunk = ReturnType<ChatModel['stream']> extends AsyncIterable<infer C> ? C : never;

/** How long a client's model may take (a human may be asked to approve the request first). */
export const SAMPLING_TIMEOUT_MS = 120_000;

const estimate = (text: string) => Math.ceil(text.length / 4);

/**
 * The client's model, when its capabilities declare `sampling` and the server can send it a request
 * (2025-11-25; a 2026-07-28 request has no server-sent requests: `extra.requestSampling` is unset);
 * undefined otherwise.
 */
export function clientModel(extra: Extra): ChatModel | undefined {
  const requestSampling = extra.requestSampling;
  if (!extra.clientCapabilities?.sampling || !requestSampling) return undefined;
  const complete = async (request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> => {
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
    // sampling has no JSON mode: the schema goes into the instructions
    if (request.json) {
      system.push(
        `Reply with one JSON object only, no prose and no Markdown fence${request.json.schema ? `, following this JSON Schema: ${JSON.stringify(request.json.schema)}` : ''}.`,
      );
    }
    const messages = request.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: { type: 'text' as const, text: m.content } }));
    let result;
    try {
      result = await requestSampling(
        {
          messages,
          systemPrompt: system.join('\n\n'),
          maxTokens: request.maxTokens,
          temperature: request.temperature ?? 0.2,
          includeContext: 'none',
        },
        { signal, timeout: request.timeoutMs ?? SAMPLING_TIMEOUT_MS },
      );
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ServiceError(
        'UNABLE_TO_GENERATE_RESPONSE',
        `the MCP client's model (sampling) did not answer: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const content = result.content.type === 'text' ? result.content.text : '';
    if (!content.trim()) {
      throw new ServiceError(
        'UNABLE_TO_GENERATE_RESPONSE',
        `the MCP client's model answered ${result.content.type === 'text' ? 'nothing' : `with ${result.content.type}, not text`}`,
      );
    }
    const prompt = request.messages.map((m) => m.content).join('\n');
    return {
      content,
      usage: { inputTokens: estimate(prompt), outputTokens: estimate(content) },
      model: result.model,
      finishReason: result.stopReason ?? null,
    };
  };
  return {
    provider: 'mcp-sampling',
    model: 'client',
    complete,
    // sampling answers whole: the stream is that answer in one piece
    async *stream(request, signal): AsyncIterable<ChatChunk> {
      const result = await complete(request, signal);
      yield { type: 'text', text: result.content };
      yield { type: 'done', result };
    },
  };
}
