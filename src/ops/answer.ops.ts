/**
 * POST /answer (REST only: the MCP `search` tool answers with `outputSchema`): a question answered from
 * search results with citations, in the wire format exa-js 2.x sends and reads. With `stream: true`,
 * OpenAI `chat.completion.chunk` frames: the first carries the top-level `citations`, the next ones the
 * text in `choices[0].delta.content`, the last `finish_reason: "stop"` with `requestId` and `costDollars`.
 */
import { randomUUID } from 'node:crypto';
import { answerBound } from '../core/accounts/bounds.js';
import {
  createAnswerService,
  type AnswerDeps,
  type AnswerEvent,
  type AnswerPlan,
} from '../core/search/answer.service.js';
import { AnswerRequest, AnswerResponse, AnswerStreamChunk } from '../schemas/answer.schema.js';
import { defineOp } from './define-op.js';
import { READS_INDEX } from './families.js';
import { resultsAnswer } from './render.js';
import { replyOf } from './reply-notes.js';

/** The `model` of every frame: which Trawl pipeline answered. */
export const ANSWER_STREAM_MODEL = 'trawl-answer';

/** The wire request as the service's plan. */
function toPlan(input: AnswerRequest): AnswerPlan {
  return {
    query: input.query,
    withText: input.text,
    systemPrompt: input.systemPrompt,
    outputSchema: input.outputSchema,
    userLocation: input.userLocation,
  };
}

const answers = (services: AnswerDeps) => createAnswerService(services);

type Delta = { role?: 'assistant'; content?: string };

/** Chat-completion chunk frames of a streamed answer. */
export async function* answerStreamFrames(events: AsyncIterable<AnswerEvent>): AsyncIterable<AnswerStreamChunk> {
  const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  const frame = (delta: Delta, finish: string | null, extra = {}): AnswerStreamChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: ANSWER_STREAM_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  for await (const event of events) {
    if (event.type === 'citations') {
      yield frame({ role: 'assistant', content: '' }, null, { citations: event.citations });
    } else if (event.type === 'text') {
      yield frame({ content: event.text }, null);
    } else {
      const { requestId, costDollars } = event.output;
      yield frame({}, 'stop', {
        requestId,
        costDollars,
        ...(event.warnings.length > 0 && { warnings: event.warnings }),
      });
    }
  }
}

/** POST /answer: REST only, `search` scope, priced by `answerBound`, streamed with `stream: true`. */
export const answerOp = defineOp({
  ...READS_INDEX,
  name: 'answer',
  tool: 'answer',
  title: 'Answer a question',
  description:
    'Answer a question from search results, with the results it was written from as citations; text, or ' +
    'an object following `outputSchema`. Written by a language model (TRAWL_MODEL_BASE_URL, TRAWL_MODEL); without one, ' +
    'a text answer is sentences extracted from the sources (warning MODEL_MISSING) and an object answer is refused.',
  capability: 'search',
  route: { method: 'POST', path: '/answer' },
  body: AnswerRequest,
  output: AnswerResponse,
  restOnly: true,
  render: (out) => {
    const { citations, answer, ...rest } = out;
    const rendered = resultsAnswer(citations, `${citations.length} citations`, rest);
    const content = typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2);
    rendered.blocks.unshift({ label: 'Answer:', source: 'model', content });
    return rendered;
  },
  uses: ['contents', 'search', 'synthesis'],
  run: async (services, input, ctx) => replyOf(await answers(services).run(toPlan(input), ctx)),
  maxCost: answerBound,
  stream: {
    when: (input) => input.stream === true,
    frame: AnswerStreamChunk,
    frames: (services, input, ctx) => answerStreamFrames(answers(services).stream(toPlan(input), ctx)),
  },
});
