/**
 * A loopback model server speaking the OpenAI Chat Completions wire format (whole and SSE-streamed), scripted
 * per test, recording what it was sent and noticing clients that hang up: the stand-in for a paid model API.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The parsed body of a `POST /v1/chat/completions`, as the client sent it. */
export interface ChatCompletionRequestBody {
  model: string;
  messages: { role: string; content: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  [field: string]: unknown;
}

/** One request as received. */
export interface RecordedRequest {
  body: ChatCompletionRequestBody;
  headers: http.IncomingHttpHeaders;
}

/** How to answer one request. A plain string is `{ content }`. */
export interface ModelReply {
  /** The assistant's text. Default: an echo of the last user message. */
  content?: string;
  /** Shorthand for `content: JSON.stringify(json)`. */
  json?: unknown;
  /** Streaming: the text in these pieces, in order (default: `content` cut after each word). */
  chunks?: string[];
  /** Answer this status instead of 200; with no `body`, an OpenAI-style error object. */
  status?: number;
  /** A raw body sent as is (objects as JSON), instead of a completion: malformed answers, custom errors, raw SSE. */
  body?: string | object;
  /** Content type of `body` (default JSON, or `text/event-stream` for a 2xx answer to a streaming request). */
  contentType?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
  /** Hang up without answering, as a reset connection looks to the client (not counted in `aborted`). */
  hangUp?: boolean;
  /** Wait before the headers (a model thinking). */
  delayMs?: number;
  /** Streaming: wait before each chunk. */
  chunkDelayMs?: number;
  /** Token counts to report; `null` reports none. Default: counted at 4 characters a token. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Default `stop`. */
  finishReason?: string;
  /** The model named in the answer. Default: the requested one. */
  model?: string;
}

/** A fixed reply, or one computed from the request (its index counts from 0 across the server's life). */
export type ReplyScript =
  | string
  | ModelReply
  | ((body: ChatCompletionRequestBody, index: number) => string | ModelReply | Promise<string | ModelReply>);

/** Parameters the server refuses with 400, as llama.cpp, LM Studio or older vLLM builds do. */
export type UnsupportedFeature = 'json_schema' | 'json_object' | 'stream_options' | 'max_tokens' | 'temperature';

export interface ModelServerOptions {
  /** The answer when no queued reply is waiting (default: echo the last user message). */
  reply?: ReplyScript;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401 (OpenAI's error shape). */
  apiKey?: string;
  unsupported?: UnsupportedFeature[];
}

export interface ModelServer {
  /** API root to configure a provider with: `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every chat request received, in arrival order (refused ones included). */
  requests: RecordedRequest[];
  /** Requests whose client hung up before the answer was complete. */
  readonly aborted: number;
  /** Resolves once `aborted` reaches `count` (default: one more than now). */
  whenAborted(count?: number): Promise<void>;
  /** Queues replies used once each, in order, before `reply` (e.g. a 500, then a 429, then success). */
  enqueue(...replies: ReplyScript[]): void;
  /** Replaces the default reply. */
  setReply(reply: ReplyScript): void;
  setUnsupported(features: UnsupportedFeature[]): void;
  /** Clears requests, queue, abort count, and restores the options given at start. */
  reset(): void;
  close(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const estimate = (text: string) => Math.ceil(text.length / 4);

function echo(body: ChatCompletionRequestBody): string {
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  return `echo: ${last?.content ?? ''}`;
}

function errorBody(status: number, message: string, param: string | null = null): object {
  const type = status === 401 ? 'authentication_error' : status < 500 ? 'invalid_request_error' : 'server_error';
  return { error: { message, type, param, code: null } };
}

/** The 400 a server without `feature` answers, worded as such servers do. */
function refusal(body: ChatCompletionRequestBody, unsupported: UnsupportedFeature[]): object | undefined {
  const format = body.response_format?.type;
  if (format && unsupported.includes(format as UnsupportedFeature)) {
    return errorBody(400, `response_format type "${format}" is not supported by this server`, 'response_format');
  }
  if (body.stream_options && unsupported.includes('stream_options')) {
    return errorBody(400, 'Unrecognized request argument supplied: stream_options', 'stream_options');
  }
  if (body.max_tokens !== undefined && unsupported.includes('max_tokens')) {
    return errorBody(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", 'max_tokens'); // prettier-ignore
  }
  if (body.temperature !== undefined && body.temperature !== 1 && unsupported.includes('temperature')) {
    return errorBody(400, `Unsupported value: 'temperature' does not support ${body.temperature} with this model.`, 'temperature'); // prettier-ignore
  }
  return undefined;
}

interface Exchange {
  body: ChatCompletionRequestBody;
  reply: ModelReply;
  res: http.ServerResponse;
  /** False once the connection is gone. */
  open: () => boolean;
  hangUp: () => void;
}

function completionFrame(ex: Exchange, id: string, content: string) {
  const { body, reply } = ex;
  const usage =
    reply.usage === null
      ? undefined
      : (reply.usage ?? {
          prompt_tokens: estimate(body.messages.map((m) => m.content).join('')),
          completion_tokens: estimate(content),
        });
  const base = { id, created: Math.floor(Date.now() / 1000), model: reply.model ?? body.model };
  return { base, usage: usage && { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } };
}

function sendWhole(ex: Exchange, content: string): void {
  const { base, usage } = completionFrame(ex, 'chatcmpl-test', content);
  const choice = { index: 0, message: { role: 'assistant', content }, finish_reason: ex.reply.finishReason ?? 'stop' };
  const answer = { ...base, object: 'chat.completion', choices: [choice], ...(usage ? { usage } : {}) };
  ex.res.writeHead(200, { 'content-type': 'application/json', ...ex.reply.headers }).end(JSON.stringify(answer));
}

async function sendStream(ex: Exchange, content: string): Promise<void> {
  const { body, reply, res } = ex;
  const { base, usage } = completionFrame(ex, 'chatcmpl-test', content);
  const frame = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  const chunk = (delta: object, finish: string | null) =>
    frame({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  chunk({ role: 'assistant', content: '' }, null);
  for (const piece of reply.chunks ?? content.match(/\S+\s*|\s+/g) ?? []) {
    if (reply.chunkDelayMs) await pause(reply.chunkDelayMs);
    if (!ex.open()) return;
    chunk({ content: piece }, null);
  }
  if (reply.chunkDelayMs) await pause(reply.chunkDelayMs);
  if (!ex.open()) return;
  chunk({}, reply.finishReason ?? 'stop');
  if (body.stream_options?.include_usage && usage) {
    frame({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  }
  frame('[DONE]');
  res.end();
}

async function answer(ex: Exchange): Promise<void> {
  const { reply, res, body } = ex;
  if (reply.delayMs) await pause(reply.delayMs);
  if (!ex.open()) return;
  if (reply.hangUp) return ex.hangUp();
  const status = reply.status ?? 200;
  if (reply.body !== undefined || status >= 300) {
    const raw = reply.body ?? errorBody(status, `scripted failure ${status}`);
    const streamed = body.stream && status < 300;
    const type = reply.contentType ?? (streamed ? 'text/event-stream' : 'application/json');
    res.writeHead(status, { 'content-type': type, ...reply.headers });
    return void res.end(typeof raw === 'string' ? raw : JSON.stringify(raw));
  }
  const content = reply.content ?? (reply.json !== undefined ? JSON.stringify(reply.json) : echo(body));
  if (body.stream) await sendStream(ex, reply.chunks && reply.content === undefined ? reply.chunks.join('') : content);
  else sendWhole(ex, content);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}

/**
 * Starts a model server on 127.0.0.1:0. `POST /v1/chat/completions` answers (in this order) 401 for a
 * wrong key, 400 for an `unsupported` parameter, else the next queued reply or `reply`; `GET /v1/models`
 * lists the model. Streaming requests get `chat.completion.chunk` frames, a usage frame when
 * `stream_options.include_usage`, then `data: [DONE]`.
 */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const queue: ReplyScript[] = [];
  let fallback: ReplyScript = options.reply ?? ((body) => echo(body));
  let unsupported = options.unsupported ?? [];
  let aborted = 0;
  let index = 0;
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const requests: RecordedRequest[] = [];

  const onAbort = () => {
    aborted++;
    for (const waiter of waiters) {
      if (aborted < waiter.count) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      const data = [{ id: 'test-model', object: 'model', owned_by: 'trawl-test' }];
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data })); // prettier-ignore
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(404, 'no such route'))); // prettier-ignore
    }
    let body: ChatCompletionRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatCompletionRequestBody;
    } catch {
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(400, 'body is not JSON'))); // prettier-ignore
    }
    requests.push({ body, headers: req.headers });
    let open = true;
    let hungUp = false;
    res.on('close', () => {
      open = false;
      if (!res.writableFinished && !hungUp) onAbort();
    });
    const hangUp = () => {
      hungUp = true;
      res.destroy();
    };
    const ex = (reply: ModelReply): Exchange => ({ body, reply, res, open: () => open && !res.destroyed, hangUp });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return answer(ex({ status: 401, body: errorBody(401, 'Incorrect API key provided.') }));
    }
    const refused = refusal(body, unsupported);
    if (refused) return answer(ex({ status: 400, body: refused }));
    const script = queue.shift() ?? fallback;
    const position = index++;
    const reply = typeof script === 'function' ? await script(body, position) : script;
    await answer(ex(typeof reply === 'string' ? { content: reply } : reply));
  };

  const server = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get aborted() {
      return aborted;
    },
    whenAborted: (count = aborted + 1) =>
      aborted >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.add({ count, resolve })),
    enqueue: (...replies) => void queue.push(...replies),
    setReply: (reply) => void (fallback = reply),
    setUnsupported: (features) => void (unsupported = features),
    reset() {
      requests.length = 0;
      queue.length = 0;
      aborted = 0;
      index = 0;
      fallback = options.reply ?? ((body) => echo(body));
      unsupported = options.unsupported ?? [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
