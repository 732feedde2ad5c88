/**
 * `/search` with `stream: true` on the wire: OpenAI `chat.completion.chunk` frames carrying the answer's
 * text in `choices[0].delta.content` (`finish_reason` null until the end), then one final frame with
 * `finish_reason: "stop"` that also carries the whole response — `results`, `output` (content and
 * grounding), `citations` (the results as exa-js reads them), `costDollars`. docs/synthesis.md.
 */
import { randomUUID } from 'node:crypto';
import type { SearchOutput, SearchStreamEvent } from '../core/search/search.service.js';

/** The `model` of every frame: which Trawl pipeline answered. */
export const STREAM_MODEL = 'trawl-search';

interface Frame {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: string | null }[];
  [extra: string]: unknown;
}

/** The results in the citation shape of streamed answers: `{id, url, title, publishedDate, author, text?}`. */
function citationsOf(response: SearchOutput) {
  return response.results.map((r) => ({
    id: r.id,
    url: r.url,
    title: r.title,
    publishedDate: r.publishedDate ?? null,
    author: r.author ?? null,
    ...(typeof r.text === 'string' ? { text: r.text } : {}),
  }));
}

/** Chat-completion chunk frames of a streamed search; the first is sent with the first text. */
export async function* searchStreamFrames(events: AsyncIterable<SearchStreamEvent>): AsyncIterable<Frame> {
  const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (delta: Frame['choices'][number]['delta'], finish: string | null, extra = {}): Frame => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: STREAM_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  let started = false;
  for await (const event of events) {
    if (!started) {
      started = true;
      yield frame({ role: 'assistant', content: '' }, null);
    }
    if (event.type === 'text') {
      yield frame({ content: event.text }, null);
      continue;
    }
    const { requestId, results, output, costDollars, searchTime, resolvedSearchType } = event.response;
    yield frame({}, 'stop', {
      requestId,
      results,
      output,
      citations: citationsOf(event.response),
      costDollars,
      searchTime,
      resolvedSearchType,
    });
  }
}
