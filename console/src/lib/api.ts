/**
 * The console's one way to the server: same-origin `fetch` with the session cookie and the CSRF token
 * of the session (held here, in memory only: never in storage or a cookie the page can read). A 401 on
 * any call but the sign-in itself means the session ended, and the app goes back to the sign-in screen.
 */
import { createSseParser, type SseEvent } from './sse.js';

/** An error answer of the server: its status, its tag (`INVALID_REQUEST`…) and its message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly tag: string | null,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
let sessionEnded: () => void = () => {};

/** Keeps the session's CSRF token (null when signed out) for every later request. */
export function setCsrf(token: string | null): void {
  csrfToken = token;
}

/** What to do when a request answers 401: the app shows the sign-in screen. */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** A value sent as JSON, or a string sent as it is with `contentType`. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Sends one request; throws ApiError for an answer that is not 2xx, after reading its error body. */
export async function send(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (csrfToken) headers['x-trawl-csrf'] = csrfToken;
  if (options.accept) headers.accept = options.accept;
  let body: string | undefined;
  if (options.body !== undefined) {
    const raw = typeof options.body === 'string' && options.contentType;
    headers['content-type'] = options.contentType ?? 'application/json';
    body = raw ? (options.body as string) : JSON.stringify(options.body);
  }
  const response = await fetch(path, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    credentials: 'same-origin',
    headers,
    body,
    signal: options.signal,
  });
  if (response.ok) return response;
  const error = await errorOf(response);
  if (response.status === 401 && path !== '/console/session') sessionEnded();
  throw error;
}

/** The error body, `{requestId, error, tag}` or `{error}` (monitor routes), as an ApiError. */
async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: unknown; tag?: unknown; requestId?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : `HTTP ${response.status}`;
    const tag = typeof parsed.tag === 'string' ? parsed.tag : null;
    const requestId = typeof parsed.requestId === 'string' ? parsed.requestId : null;
    return new ApiError(response.status, message, tag, requestId);
  } catch {
    return new ApiError(response.status, text.slice(0, 300) || `HTTP ${response.status}`, null, null);
  }
}

/** A request whose answer is JSON (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A JSON POST. */
export function post<T>(path: string, body: unknown = {}): Promise<T> {
  return api<T>(path, { method: 'POST', body });
}

/**
 * Reads a `text/event-stream` answer as it arrives, calling `onEvent` for each event. EventSource
 * cannot send the CSRF header, so the page reads the body of a `fetch` itself.
 */
export async function readEventStream(response: Response, onEvent: (event: SseEvent) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser(onEvent);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.push(decoder.decode(value, { stream: true }));
  }
  parser.push(decoder.decode());
  parser.end();
}

/** A list page as every paged route answers it. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `path` with `cursor=` added when there is one. */
export function withCursor(path: string, cursor: string | null): string {
  if (!cursor) return path;
  return `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
}

/** A message for anything thrown, with the tag when the server gave one. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.tag ? `${error.message} (${error.tag})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
