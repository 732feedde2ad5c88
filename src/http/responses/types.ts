/** The OpenAI Responses objects as svc-agent fills them, and what their mapping reads of a run. */
import type { RESPONSES_MODEL } from './request.js';

/** What the mapping reads of an agent run (the AgentRun of src/core/agent/agent-runs.types.ts). */
export interface RunView {
  id: string;
  status: string;
  createdAt: string;
  completedAt?: string | null;
  request: Record<string, unknown>;
  output?: { text?: string; grounding?: { citations?: { url: string; title?: string | null }[] }[] } | null;
  usage?: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
}

/** A source of the answer, as an output_text annotation. */
export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}
/** The answer's one content part. */
export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: UrlCitation[];
}
/** The assistant message holding the answer. */
export interface OutputMessage {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed';
  content: OutputText[];
}
/** One search of the run, as a web_search_call item. */
export interface WebSearchCall {
  type: 'web_search_call';
  id: string;
  status: 'in_progress' | 'completed' | 'failed';
  action: { type: 'search'; query: string; sources: { type: 'url'; url: string }[] };
}
/** A Response's status (an agent run's, renamed). */
export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** OpenAI's Response object, as svc-agent fills it. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  background: boolean | null;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: null;
  instructions: string | null;
  max_output_tokens: null;
  metadata: Record<string, string>;
  model: typeof RESPONSES_MODEL;
  output: (WebSearchCall | OutputMessage)[];
  output_text: string;
  parallel_tool_calls: false;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: null };
  service_tier: 'default';
  store: true;
  temperature: null;
  text: { format: { type: 'text' } };
  tool_choice: 'auto';
  tools: [];
  top_p: null;
  truncation: 'disabled';
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  } | null;
}

/** One Responses stream event: `type`, `sequence_number` (0, 1, …) and the type's fields. */
export type ResponseStreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;
