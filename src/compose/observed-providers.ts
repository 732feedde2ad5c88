/**
 * The operator's providers with their calls observed (src/lib/observe.ts): each call counted by kind,
 * provider name and outcome, and timed. Names are the providers' own fixed names (`brave`, `searxng`,
 * `upstream`, `openai-compatible`), never a URL or a model's free text.
 */
import { observe, since, type ProviderKind } from '../lib/observe.js';
import type { Embedder } from '../providers/embeddings.js';
import type { ChatModel } from '../providers/model/types.js';
import type { WebSearchProvider } from '../providers/search/types.js';

/** Runs `call`, recording its outcome and time under `kind` and `name`. */
async function observed<T>(kind: ProviderKind, name: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    observe.provider(kind, name, true, since(started));
    return result;
  } catch (err) {
    observe.provider(kind, name, false, since(started));
    throw err;
  }
}

export function observedSearch(provider: WebSearchProvider): WebSearchProvider {
  return { name: provider.name, search: (query, signal) => observed('search', provider.name, () => provider.search(query, signal)) }; // prettier-ignore
}

export function observedEmbedder(embedder: Embedder): Embedder {
  return { model: embedder.model, embed: (texts, signal) => observed('embeddings', 'openai-compatible', () => embedder.embed(texts, signal)) }; // prettier-ignore
}

/** A model whose completions and streams are observed (a stream when it ends, or fails). */
export function observedModel(model: ChatModel): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    complete: (request, signal) => observed('model', model.provider, () => model.complete(request, signal)),
    async *stream(request, signal) {
      const started = performance.now();
      let ok = false;
      try {
        yield* model.stream(request, signal);
        ok = true;
      } finally {
        observe.provider('model', model.provider, ok, since(started));
      }
    },
  };
}
