/**
 * Checks of the configured providers and of the listener, each with a call that costs nothing: the
 * model and embeddings APIs list their models (`GET {url}/models`), SearXNG describes itself
 * (`GET {url}/config`), a Trawl upstream and the listener answer `GET /health`. Brave has no free call,
 * so it is not called. Every text passes through `scrub`, every URL through `publicUrl`.
 */
import { FetchError } from '../../fetch/types.js';
import type { GetJson } from '../../providers/search/types.js';
import { publicUrl, scrub } from './redact.js';
import type { Check } from './report.js';

/** How the probes call out: the operator-endpoint JSON client, a time limit, the secrets to blank out. */
export interface ProbeDeps {
  getJson: GetJson;
  timeoutMs: number;
  secrets: readonly (string | undefined)[];
  signal?: AbortSignal;
}

type Answer =
  { ok: true; body: unknown; ms: number } | { ok: false; status: number | null; message: string; ms: number };

/** A part that is not configured. */
export const off = (name: string, detail: string): Check => ({ name, configured: false, state: 'off', detail });

const trimmed = (base: string) => base.replace(/\/+$/, '');

/** One GET; a failure (no answer, non-2xx, non-JSON) is returned in words, never thrown. */
async function get(deps: ProbeDeps, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  try {
    const body = await deps.getJson<unknown>(url, { headers, timeoutMs: deps.timeoutMs, signal: deps.signal });
    return { ok: true, body, ms: Date.now() - started };
  } catch (err) {
    const status = err instanceof FetchError ? err.httpStatusCode : null;
    const message = scrub(err instanceof Error ? err.message : String(err), deps.secrets);
    return { ok: false, status, message, ms: Date.now() - started };
  }
}

/** The state and words of a failed call: an HTTP answer other than 2xx, or none at all. */
function failure(
  answer: Extract<Answer, { ok: false }>,
  keySet: boolean,
  keySetting: string,
): Pick<Check, 'state' | 'detail'> {
  const { status, message } = answer;
  if (status === 401 || status === 403) {
    const why = keySet ? 'refused the API key' : `needs an API key (${keySetting})`;
    return { state: 'failed', detail: `${why} (HTTP ${status}): ${message}` };
  }
  if (status === 404) return { state: 'unverified', detail: `answers, but not this check (HTTP 404): ${message}` };
  if (status !== null && status < 300)
    return { state: 'unverified', detail: `answers, but not in the expected format: ${message}` };
  return {
    state: 'failed',
    detail: status === null ? `does not answer: ${message}` : `answered HTTP ${status}: ${message}`,
  };
}

/** The model ids of an OpenAI-style `{data: [{id}]}` list, if the body is one. */
function modelIds(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
}

/** An OpenAI-compatible API (chat model or embeddings): `GET {base}/models`, and whether it lists `model`. */
export async function probeModels(
  name: 'model' | 'embeddings',
  setting: { baseUrl: string; apiKey?: string; model: string; keySetting: string },
  deps: ProbeDeps,
): Promise<Check> {
  const url = publicUrl(setting.baseUrl);
  const headers: Record<string, string> = setting.apiKey ? { authorization: `Bearer ${setting.apiKey}` } : {};
  const answer = await get(deps, `${trimmed(setting.baseUrl)}/models`, headers);
  const base = { name, configured: true, url, model: setting.model, ms: answer.ms };
  if (!answer.ok) return { ...base, ...failure(answer, Boolean(setting.apiKey), setting.keySetting) };
  const ids = modelIds(answer.body);
  if (!ids) return { ...base, state: 'unverified', detail: 'answers GET /models, but not with a list of models' };
  if (ids.includes(setting.model))
    return { ...base, state: 'ok', detail: `answers; ${setting.model} is among its ${ids.length} models` };
  const some = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', …' : '');
  return {
    ...base,
    state: 'unverified',
    detail: `answers, but does not list ${setting.model} (it lists ${ids.length}: ${some || 'none'})`,
  };
}

/** The Basic Authorization header of credentials in a URL (as the SearXNG provider sends them). */
function basicAuth(raw: string): Record<string, string> {
  const url = new URL(raw);
  if (!url.username && !url.password) return {};
  const token = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString(
    'base64',
  );
  return { authorization: `Basic ${token}` };
}

/** The URL without credentials, query or fragment, for the call itself (credentials go in a header). */
function bareBase(raw: string): string {
  const url = new URL(raw);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return trimmed(url.href);
}

/** SearXNG: `GET {base}/config` (its version and engines), free and without a search. */
export async function probeSearxng(baseUrl: string, deps: ProbeDeps): Promise<Check> {
  const answer = await get(deps, `${bareBase(baseUrl)}/config`, basicAuth(baseUrl));
  const base = { name: 'searxng', configured: true, url: publicUrl(baseUrl), ms: answer.ms };
  if (!answer.ok)
    return { ...base, ...failure(answer, Boolean(new URL(baseUrl).password), 'credentials in --searxng-url') };
  const config = answer.body as { version?: unknown; engines?: unknown } | null;
  if (!config || !Array.isArray(config.engines)) {
    return { ...base, state: 'unverified', detail: 'answers GET /config, but not as SearXNG does' };
  }
  const enabled = config.engines.filter((e) => (e as { enabled?: unknown })?.enabled === true).length;
  const version = typeof config.version === 'string' ? ` ${config.version}` : '';
  if (enabled === 0)
    return { ...base, state: 'unverified', detail: `SearXNG${version} answers, but has no engine enabled` };
  return {
    ...base,
    state: 'ok',
    detail: `SearXNG${version} answers, ${enabled} engines enabled (the JSON format is checked by the first search)`,
  };
}

/** An upstream service: a Trawl answers `GET {base}/health` for free; the hosted API's search is billed. */
export async function probeUpstream(baseUrl: string, deps: ProbeDeps): Promise<Check> {
  const answer = await get(deps, `${bareBase(baseUrl)}/health`);
  const base = { name: 'upstream', configured: true, url: publicUrl(baseUrl), ms: answer.ms };
  const health = answer.ok ? (answer.body as { status?: unknown; version?: unknown } | null) : null;
  if (health?.status === 'ok') {
    const version = typeof health.version === 'string' ? ` ${health.version}` : '';
    return {
      ...base,
      state: 'ok',
      detail: `a Trawl${version} answers /health (its key is checked by the first search)`,
    };
  }
  if (!answer.ok && answer.status === null)
    return { ...base, state: 'failed', detail: `does not answer: ${answer.message}` };
  const how = answer.ok ? 'answers' : `answers HTTP ${answer.status} at /health`;
  return { ...base, state: 'skipped', detail: `${how}; not checked further, since every search there is billed` };
}

/** Brave Search: not called, since each call is billed (or counts against the plan's monthly credit). */
export function braveCheck(configured: boolean): Check {
  if (!configured) return { name: 'brave', configured, state: 'off', detail: 'not configured (--brave-api-key)' };
  return {
    name: 'brave',
    configured,
    state: 'skipped',
    detail: 'not checked: every Brave Search API call is billed or counts against its monthly credit',
  };
}

/** The address to reach a listener on from this machine (a wildcard address means loopback). */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The store the doctor reads, to compare with the one the listener serves (./store-identity.ts). */
export interface ListenerStores {
  /** The identity of the store this report reads. */
  mine: string;
  /** Where that is, in words (the data directory, or the database). */
  mineShown: string;
  /** Other stores to name when the listener serves one of them (the default data directory). */
  known?: { id: string; shown: string }[];
}

/**
 * The listener of `trawl serve`: whether a Trawl answers `GET /health` on its host and port, and whether
 * it serves the store this report reads (`otherStore` when not).
 */
export async function probeListener(
  host: string,
  port: number,
  deps: ProbeDeps,
  stores?: ListenerStores,
): Promise<Check & { host: string; port: number; otherStore?: boolean }> {
  const url = `http://${reachableHost(host)}:${port}`;
  const base = { name: 'listener', configured: true, host, port, url };
  if (port === 0) return { ...base, state: 'skipped', detail: 'port 0: trawl serve picks a free port at each start' };
  const answer = await get(deps, `${url}/health`);
  const health = answer.ok ? (answer.body as { status?: unknown; version?: unknown; store?: unknown } | null) : null;
  if (health?.status === 'ok') {
    const version = typeof health.version === 'string' ? ` ${health.version}` : '';
    const served = typeof health.store === 'string' ? health.store : undefined;
    if (stores && served && served !== stores.mine) {
      const named = stores.known?.find((k) => k.id === served);
      return {
        ...base,
        ms: answer.ms,
        state: 'unverified',
        otherStore: true,
        detail: `a Trawl${version} answers, but it serves ${named ? named.shown : 'another data directory or database'}, not ${stores.mineShown}`,
      };
    }
    return { ...base, ms: answer.ms, state: 'ok', detail: `a Trawl${version} answers` };
  }
  if (!answer.ok && answer.status === null)
    return { ...base, state: 'off', detail: `nothing answers: ${answer.message}` };
  return {
    ...base,
    ms: answer.ms,
    state: 'unverified',
    detail: 'another program answers there, so trawl serve cannot listen on this port',
  };
}
