/**
 * The spans of the edges the core calls through its ports, put on by the composition root when traces
 * are on (none of these modules knows of tracing): a span per repository call, per model completion
 * (OpenTelemetry's gen_ai conventions), per embeddings batch, per web-search query and per webhook
 * attempt. The providers' and webhooks' HTTP calls carry the trace context only where
 * TRAWL_TRACE_PROPAGATE allows (`tracing.propagating`).
 */
import type { Stores } from '../store/contracts/stores.js';
import type { WebhookSender } from '../fetch/webhook-sender.js';
import type { Embedder } from '../providers/embeddings.js';
import type { ChatModel, ChatRequest, ChatResult } from '../providers/model/types.js';
import type { WebSearchProvider } from '../providers/search/types.js';
import type { SpanAttributes, SpanHandle, Tracing } from '../lib/tracing.js';

/**
 * `repo` with each method call in a span `store <name>.<method>`, inside a trace only (the store's calls
 * of background loops start none); other properties as they are.
 */
function tracedRepo<T extends object>(tracing: Tracing, name: string, system: string, repo: T): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(repo, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      if (!wrapped.has(property)) {
        const attributes = { 'db.system.name': system, 'db.collection.name': name, 'db.operation.name': property };
        const span = `store ${name}.${property}`;
        wrapped.set(property, (...args: unknown[]) =>
          tracing.span(span, { attributes, childOnly: true }, () => Reflect.apply(value, target, args) as unknown),
        );
      }
      return wrapped.get(property);
    },
  });
}

/** Every repository of `stores` traced (./traced.ts `tracedRepo`), on SQLite or PostgreSQL. */
export function tracedStores(tracing: Tracing, stores: Stores): Stores {
  if (!tracing.enabled) return stores;
  const system = stores.backend === 'postgres' ? 'postgresql' : 'sqlite';
  const out: Record<string, unknown> = { backend: stores.backend };
  for (const [name, repo] of Object.entries(stores)) {
    if (name !== 'backend') out[name] = tracedRepo(tracing, name, system, repo as object);
  }
  return out as unknown as Stores;
}

/** The gen_ai attributes of a chat request (OpenTelemetry's semantic conventions for generative AI). */
function chatAttributes(model: ChatModel, request: ChatRequest): SpanAttributes {
  return {
    'gen_ai.operation.name': 'chat',
    // the wire format Trawl speaks (OpenAI Chat Completions), whichever server answers it
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': model.model,
    'gen_ai.request.max_tokens': request.maxTokens,
    'gen_ai.request.temperature': request.temperature,
    'gen_ai.output.type': request.json ? 'json' : 'text',
    'trawl.provider': model.provider,
  };
}

function chatResult(span: SpanHandle, result: ChatResult): void {
  span.set({
    'gen_ai.response.model': result.model,
    'gen_ai.response.finish_reasons': result.finishReason ? [result.finishReason] : undefined,
    'gen_ai.usage.input_tokens': result.usage.inputTokens,
    'gen_ai.usage.output_tokens': result.usage.outputTokens,
  });
}

/** `source`, each of its pulls inside `tracing.propagating('providers', …)`: a stream's requests carry the context too. */
function propagatingIterable<T>(tracing: Tracing, source: AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      return {
        next: () => tracing.propagating('providers', () => it.next()),
        return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true, value: value as T }),
      };
    },
  };
}

/** The model with a client span per completion, whole or streamed: `chat <model>`. */
function tracedModel(tracing: Tracing, model: ChatModel): ChatModel {
  const name = `chat ${model.model}`;
  return {
    provider: model.provider,
    model: model.model,
    complete: (request, signal) =>
      tracing.span(name, { kind: 'client', attributes: chatAttributes(model, request) }, async (span) => {
        const result = await tracing.propagating('providers', () => model.complete(request, signal));
        chatResult(span, result);
        return result;
      }),
    stream: (request, signal) =>
      tracing.iterate(name, { kind: 'client', attributes: chatAttributes(model, request) }, (span) =>
        (async function* () {
          for await (const chunk of propagatingIterable(tracing, model.stream(request, signal))) {
            if (chunk.type === 'done') chatResult(span, chunk.result);
            yield chunk;
          }
        })(),
      ),
  };
}

/** The embedder with a client span per call inside a trace (background embedding starts none). */
function tracedEmbedder(tracing: Tracing, embedder: Embedder): Embedder {
  return {
    model: embedder.model,
    embed: (texts, signal) =>
      tracing.span(
        `embeddings ${embedder.model}`,
        {
          kind: 'client',
          childOnly: true,
          attributes: {
            'gen_ai.operation.name': 'embeddings',
            'gen_ai.request.model': embedder.model,
            'trawl.embeddings.input_count': texts.length,
          },
        },
        () => tracing.propagating('providers', () => embedder.embed(texts, signal)),
      ),
  };
}

/** A web-search provider with a client span per query: `web_search <provider>`, the query an attribute. */
function tracedWebSearch(tracing: Tracing, provider: WebSearchProvider): WebSearchProvider {
  return {
    name: provider.name,
    search: (query, signal) =>
      tracing.span(
        `web_search ${provider.name}`,
        { kind: 'client', attributes: { 'trawl.provider': provider.name, 'trawl.search.query': query.query } },
        async (span) => {
          const hits = await tracing.propagating('providers', () => provider.search(query, signal));
          span.set({ 'trawl.search.result_count': hits.length });
          return hits;
        },
      ),
  };
}

/** The providers an app was configured with, traced when traces are on. */
export function tracedProviders<P extends { model?: ChatModel; embedder?: Embedder; webSearch: WebSearchProvider[] }>(
  tracing: Tracing,
  providers: P,
): P {
  if (!tracing.enabled) return providers;
  return {
    ...providers,
    model: providers.model && tracedModel(tracing, providers.model),
    embedder: providers.embedder && tracedEmbedder(tracing, providers.embedder),
    webSearch: providers.webSearch.map((provider) => tracedWebSearch(tracing, provider)),
  };
}

/**
 * The webhook sender with a client span per attempt, `webhook send`: content-free (the sender does not
 * know whose monitor it serves), its status and outcome as attributes.
 */
export function tracedWebhookSender(tracing: Tracing, sender: WebhookSender): WebhookSender {
  if (!tracing.enabled) return sender;
  return {
    refusal: (url) => sender.refusal(url),
    close: () => sender.close(),
    timeoutMs: sender.timeoutMs,
    send: (delivery, signal) =>
      tracing.span(
        'webhook send',
        { kind: 'client', contentFree: true, attributes: { 'trawl.webhook.event_type': delivery.eventType } },
        async (span) => {
          const outcome = await tracing.propagating('webhooks', () => sender.send(delivery, signal));
          span.set({
            'trawl.webhook.ok': outcome.ok,
            'http.response.status_code': outcome.status ?? undefined,
            'trawl.webhook.attempt_ms': outcome.durationMs,
          });
          if (!outcome.ok) span.fail(outcome.status === null ? 'no_response' : String(outcome.status));
          return outcome;
        },
      ),
  };
}
