/**
 * The response side of the OpenAI-style Responses interface (model `svc-agent`): a run with its stored
 * events mapped onto a Response object and the Responses stream events. One fold produces both, so a
 * stream's last event and a later retrieve carry the same object. ./request.ts maps requests;
 * ../responses.ts is the door; docs/responses.md the contract.
 */
import type { AgentEvent } from '../../core/agent/agent-runs.service.js';
import { RESPONSES_MODEL } from './request.js';
import type {
  OutputMessage,
  OutputText,
  ResponseObject,
  ResponseStatus,
  ResponseStreamEvent,
  RunView,
  UrlCitation,
  WebSearchCall,
} from './types.js';

export type { ResponseObject, ResponseStreamEvent, RunView } from './types.js';

type Emitted = { type: string } & Record<string, unknown>;

const seconds = (iso: string | null | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) : null);
const STATUS: Record<string, ResponseStatus> = {
  queued: 'queued',
  running: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};
/** Characters per delta: the answer is written whole, then streamed in word-aligned pieces of about this size. */
const DELTA_CHARS = 48;

/** Word-aligned pieces of `text` that join back to it exactly. */
export function chunksOf(text: string, size = DELTA_CHARS): string[] {
  const out: string[] = [];
  for (const word of text.split(/(?<=\s)/)) {
    if (out.length > 0 && out[out.length - 1]!.length + word.length <= size) out[out.length - 1] += word;
    else out.push(word);
  }
  return out.filter((piece) => piece.length > 0);
}

/** Tokens of a run: all its model tokens; the answer's share (4 characters a token) reported as output. */
function usageOf(run: RunView, text: string): ResponseObject['usage'] {
  const total = Math.max(0, Math.round(Number(run.usage?.modelTokens ?? 0) || 0));
  const output = Math.min(total, Math.ceil(text.length / 4));
  return {
    input_tokens: total - output,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: total,
  };
}

/** The grounding's sources as url_citation annotations; Trawl cites for the whole answer, so each spans it. */
function citationsOf(run: RunView, text: string): UrlCitation[] {
  const seen = new Map<string, UrlCitation>();
  for (const entry of run.output?.grounding ?? []) {
    for (const c of entry.citations ?? []) {
      if (!seen.has(c.url))
        seen.set(c.url, {
          type: 'url_citation',
          url: c.url,
          title: c.title ?? c.url,
          start_index: 0,
          end_index: text.length,
        });
    }
  }
  return [...seen.values()];
}

function baseResponse(run: RunView, background: boolean | null): ResponseObject {
  const request = run.request as { systemPrompt?: string; effort?: string; metadata?: Record<string, unknown> };
  const metadata = Object.fromEntries(
    Object.entries(request.metadata ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return {
    id: run.id,
    object: 'response',
    created_at: seconds(run.createdAt) ?? 0,
    status: 'queued',
    background,
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: request.systemPrompt ?? null,
    max_output_tokens: null,
    metadata,
    model: RESPONSES_MODEL,
    output: [],
    output_text: '',
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: { effort: request.effort && request.effort !== 'auto' ? request.effort : null, summary: null },
    service_tier: 'default',
    store: true,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: null,
  };
}

/**
 * The fold of a run's events into its Response: `apply` updates the Response for one agent event and
 * returns the Responses events that report the change (without sequence numbers).
 */
function createFold(run: RunView, background: boolean | null) {
  const response = baseResponse(run, background);
  const searches = new Map<string, WebSearchCall>();
  const suffix = run.id.replace(/^run_/, '');
  const snapshot = () => ({ response: structuredClone(response) });
  let ended = false;

  const end = (status: ResponseStatus, error: ResponseObject['error']): Emitted[] => {
    ended = true;
    response.status = status;
    response.error = status === 'failed' ? error : null;
    for (const item of searches.values()) if (item.status === 'in_progress') item.status = 'failed';
    return [{ type: 'response.failed', ...snapshot() }]; // cancelled too: the stream has no cancelled event
  };

  const complete = (done: RunView, at: string): Emitted[] => {
    const text = done.output?.text ?? '';
    const message: OutputMessage = {
      type: 'message',
      id: `msg_${suffix}`,
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    const output_index = response.output.push(message) - 1;
    const at0 = { item_id: message.id, output_index, content_index: 0 };
    const part: OutputText = { type: 'output_text', text: '', annotations: [] };
    const events: Emitted[] = [
      { type: 'response.output_item.added', output_index, item: structuredClone(message) },
      { type: 'response.content_part.added', ...at0, part: structuredClone(part) },
      ...chunksOf(text).map((delta) => ({ type: 'response.output_text.delta', ...at0, delta, logprobs: [] })),
    ];
    part.annotations = citationsOf(done, text);
    part.annotations.forEach((annotation, annotation_index) =>
      events.push({ type: 'response.output_text.annotation.added', ...at0, annotation_index, annotation }),
    );
    part.text = text;
    message.content = [part];
    message.status = 'completed';
    Object.assign(response, {
      status: 'completed',
      completed_at: seconds(done.completedAt ?? at),
      usage: usageOf(done, text),
      output_text: text,
    });
    ended = true;
    events.push(
      { type: 'response.output_text.done', ...at0, text, logprobs: [] },
      { type: 'response.content_part.done', ...at0, part: structuredClone(part) },
      { type: 'response.output_item.done', output_index, item: structuredClone(message) },
      { type: 'response.completed', ...snapshot() },
    );
    return events;
  };

  const apply = (e: AgentEvent): Emitted[] => {
    const callId = String(e.data.callId ?? '');
    const item = searches.get(callId);
    switch (e.event) {
      case 'agent_run.created':
        return [{ type: 'response.created', ...snapshot() }];
      case 'agent_run.started':
        response.status = 'in_progress';
        return [{ type: 'response.in_progress', ...snapshot() }];
      case 'agent_run.search': {
        const added: WebSearchCall = {
          type: 'web_search_call',
          id: `ws_${suffix}_${callId.replace(/^call_/, '')}`,
          status: 'in_progress',
          action: { type: 'search', query: String(e.data.query ?? ''), sources: [] },
        };
        searches.set(callId, added);
        const ref = { item_id: added.id, output_index: response.output.push(added) - 1 };
        return [
          { type: 'response.output_item.added', output_index: ref.output_index, item: structuredClone(added) },
          { type: 'response.web_search_call.in_progress', ...ref },
          { type: 'response.web_search_call.searching', ...ref },
        ];
      }
      case 'agent_run.source.added':
        item?.action.sources.push({ type: 'url', url: String(e.data.url) });
        return [];
      case 'agent_run.tool.progress': {
        if (!item || item.status !== 'in_progress') return [];
        item.status = 'completed';
        const ref = { item_id: item.id, output_index: response.output.indexOf(item) };
        return [
          { type: 'response.web_search_call.completed', ...ref },
          { type: 'response.output_item.done', output_index: ref.output_index, item: structuredClone(item) },
        ];
      }
      case 'agent_run.completed':
        return complete(e.data as unknown as RunView, e.createdAt);
      case 'agent_run.failed':
        return end('failed', (e.data.error as ResponseObject['error']) ?? null);
      case 'agent_run.cancelled':
        return end('cancelled', null);
      default:
        return [];
    }
  };
  /** Brings the Response to the run's own state where the events stop short of it (events not kept). */
  const settle = (current: RunView) => {
    if (ended) return;
    if (current.status === 'completed') complete(current, current.completedAt ?? current.createdAt);
    else if (current.status === 'failed' || current.status === 'cancelled') end(current.status, current.error ?? null);
    else response.status = STATUS[current.status] ?? 'in_progress';
  };
  return { response, apply, settle };
}

/**
 * The Response of a run from its stored events (in order, from the first), brought to the run's own
 * state where they stop short of it (a zero-retention run's events are erased after a while).
 */
export function toResponse(run: RunView, events: Iterable<AgentEvent>, background: boolean | null): ResponseObject {
  const fold = createFold(run, background);
  for (const e of events) fold.apply(e);
  fold.settle(run);
  return fold.response;
}

/**
 * The Responses stream events of a run's events (from the first; the agent stream's own ends end it),
 * numbered from 0; with `startingAfter`, only those after that sequence number. Deterministic, so a
 * replay numbers every event as the live stream did.
 */
export async function* toResponseEvents(
  run: RunView,
  events: AsyncIterable<AgentEvent>,
  options: { background: boolean | null; startingAfter?: number },
): AsyncIterable<ResponseStreamEvent> {
  const fold = createFold(run, options.background);
  let sequence = 0;
  for await (const e of events) {
    for (const { type, ...rest } of fold.apply(e)) {
      const sequence_number = sequence++;
      if (options.startingAfter === undefined || sequence_number > options.startingAfter) {
        yield { type, sequence_number, ...rest };
      }
    }
  }
}
