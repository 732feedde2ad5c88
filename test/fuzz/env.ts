/**
 * The fuzz environment: the seed and size of a run (FUZZ_SEED, FUZZ_RUNS), and the loopback model that
 * answers at once, with the smallest instance of a requested JSON Schema or an echo.
 */
import { startModelServer, type ChatCompletionRequestBody, type ModelServer } from '../helpers/model-server.js';
import { minimalInstance } from './json-arbitrary.js';

/** The run's seed: FUZZ_SEED, or one drawn now (printed, so a failure can be replayed). */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.FUZZ_SEED);
  return Number.isInteger(given) && env.FUZZ_SEED !== '' ? given : Math.floor(Math.random() * 2 ** 31);
}

/** Cases per endpoint and door: FUZZ_RUNS, or `fallback`. */
export function fuzzRuns(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.FUZZ_RUNS);
  return Number.isInteger(given) && given > 0 ? given : fallback;
}

/** Cases in flight at once against one server: few enough that queueing behind the others keeps each answer within the 1 s budget on a busy 2-core machine. */
export const FUZZ_CONCURRENCY = 4;

/** The reply of the loopback model: JSON for a structured output, else an echo of the question. */
function reply(body: ChatCompletionRequestBody): string {
  const schema = body.response_format?.json_schema?.schema;
  if (body.response_format?.type === 'json_schema') return JSON.stringify(minimalInstance(schema));
  if (body.response_format?.type === 'json_object') return '{}';
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return `An answer [1]. ${String(last?.content ?? '').slice(0, 200)}`;
}

/**
 * The loopback model server of the fuzz environment. `hold` may keep a request waiting (until the promise
 * it returns settles): a task that must stay working while the fuzz runs.
 */
export function startFuzzModel(
  hold?: (body: ChatCompletionRequestBody) => Promise<unknown> | undefined,
): Promise<ModelServer> {
  if (!hold) return startModelServer({ reply });
  return startModelServer({ reply: async (body) => (await hold(body), reply(body)) });
}

/** Server settings of the fuzz environment for a model at `modelBaseUrl`. */
export const fuzzFlags = (modelBaseUrl: string) => ({
  modelBaseUrl,
  model: 'fuzz-model',
  modelApiKey: 'sk-fuzz',
  modelTimeoutMs: 1_500,
});
