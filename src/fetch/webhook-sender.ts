/**
 * One delivery attempt of one monitor event to one webhook URL: a signed POST through the SSRF guard,
 * redirects followed by hand with every hop checked again. Failures come back as outcomes, never thrown.
 */
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { createAddressGuard, type HostLookup } from './address-guard.js';
import { toFetchError } from './errors.js';
import { FetchError } from './types.js';
import { parseFetchUrl } from './url-policy.js';
import { nonPublicHostReason } from '../lib/ip.js';
import { quotedUrl } from '../lib/safe-text.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signing.js';

export interface WebhookSenderOptions {
  /** Refuse http: URLs (false only under TRAWL_ALLOW_INSECURE_WEBHOOKS). */
  requireHttps: boolean;
  /**
   * The SSRF guard's options (src/fetch/address-guard.ts): allowPrivateNetwork true lifts it
   * (TRAWL_ALLOW_INSECURE_WEBHOOKS). The app lists no private addresses: TRAWL_PRIVATE_ALLOWLIST opens
   * page fetches only, never webhooks; `lookup` is the fetcher's resolver.
   */
  guard: { allowPrivateNetwork: boolean; privateAllowlist: readonly string[]; lookup?: HostLookup };
  /** Whole-attempt deadline: connect, headers and the (discarded) response body. Default 10_000. */
  timeoutMs?: number;
  userAgent: string;
  /** Redirect hops followed, each re-checked (default 3). */
  maxRedirects?: number;
}

export interface WebhookDelivery {
  url: string;
  /** The raw JSON text, sent and signed byte for byte. */
  body: string;
  secret: string;
  eventId: string;
  eventType: string;
}

export interface AttemptOutcome {
  /** A 2xx from the final hop. */
  ok: boolean;
  /** Final HTTP status (a refused or excess redirect's own 3xx), null when none was received. */
  status: number | null;
  /** Why it failed, human readable, never containing the secret or the signature; null when ok. */
  error: string | null;
  durationMs: number;
  /** The URLs redirected to, in order (a refused or excess last one included). */
  redirects: string[];
}

export interface WebhookSender {
  /**
   * Why `url` may not receive webhooks, its host resolved and every address checked (a monitor's
   * creation asks before storing it); undefined when it may. Never throws.
   */
  refusal(url: string): Promise<string | undefined>;
  /** Makes one attempt, bounded by `timeoutMs` and `signal`; never throws. */
  send(delivery: WebhookDelivery, signal?: AbortSignal): Promise<AttemptOutcome>;
  /** Closes the pooled connections (waiting for attempts in flight). */
  close(): Promise<void>;
  /** The longest one attempt takes, redirects included (the outbox's lease outlasts it). */
  readonly timeoutMs: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** The receiver's answer is read up to this much, then dropped: only its status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** A failure whose message is already the outcome's `error`. */
class Refusal extends Error {}

/** What one attempt has seen so far, kept for the outcome even when it fails midway. */
interface Trail {
  url: URL | undefined;
  status: number | null;
  redirects: string[];
}

const bareHost = (hostname: string) => hostname.replace(/^\[|\]$/g, '');
const isOkStatus = (status: number | null) => status !== null && status >= 200 && status < 300;
const unixNow = () => Math.floor(Date.now() / 1000);

/** Why resolving `host` failed: the guard's refusal, or the name not resolving (never a stack). */
function unresolvable(err: unknown, host: string): string {
  if (err instanceof FetchError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOTFOUND' || code === 'ENODATA') return `${host} does not resolve to any address`;
  return `${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`;
}

/** Creates a sender over one pooled undici Agent whose connector enforces the SSRF guard. */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const guard = createAddressGuard({ ...options.guard, liftedBy: 'TRAWL_ALLOW_INSECURE_WEBHOOKS lifts it' });
  // The deadline below is the real bound; the Agent's own timeouts only back it up.
  const agent = new Agent({
    connect: guard.connector({ timeoutMs }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  /** Why `url` may not receive a webhook, or undefined. Names resolving to private addresses fail at connect. */
  const refusalOf = (url: URL): string | undefined => {
    if (options.requireHttps && url.protocol !== 'https:') return 'webhooks must use HTTPS';
    if (!guard.enabled) return undefined;
    try {
      guard.checkHost(url.hostname);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    // Literal IPs were judged by the guard (honouring the allowlist); names like localhost or *.internal here.
    return isIP(bareHost(url.hostname)) ? undefined : nonPublicHostReason(url.hostname);
  };

  /** Parses and checks a URL (`base` for a redirect's Location); throws a Refusal saying why not. */
  const checked = (raw: string, base: URL | undefined, trail: Trail): URL => {
    let url: URL;
    try {
      url = parseFetchUrl(raw, base);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Refusal(base ? `${quotedUrl(base)} redirected to a URL that is refused: ${why}` : `refused: ${why}`);
    }
    if (base) trail.redirects.push(url.href);
    const why = refusalOf(url);
    if (why) throw new Refusal(base ? `redirect to ${quotedUrl(url)} refused: ${why}` : `refused: ${why}`);
    return url;
  };

  const refusal = async (raw: string): Promise<string | undefined> => {
    let url: URL;
    try {
      url = parseFetchUrl(raw);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    const why = refusalOf(url);
    if (why || !guard.enabled) return why;
    try {
      await guard.resolve(url.hostname);
      return undefined;
    } catch (err) {
      return unresolvable(err, bareHost(url.hostname));
    }
  };

  /** One POST with a fresh signature; the answer's body is read up to the cap and dropped. */
  const post = async (url: URL, delivery: WebhookDelivery, signal: AbortSignal) => {
    const res = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': options.userAgent,
        [SIGNATURE_HEADER]: signatureHeader(delivery.secret, delivery.body, unixNow()),
        'svc-event-id': delivery.eventId,
        'svc-event-type': delivery.eventType,
      },
      body: delivery.body,
    });
    // dump() reads at most the limit, then destroys the body; a fully read body returns its socket to the pool.
    await res.body.dump({ limit: MAX_RESPONSE_BYTES, signal });
    const location = res.headers.location;
    return { status: res.statusCode, location: typeof location === 'string' ? location : undefined };
  };

  const follow = async (delivery: WebhookDelivery, signal: AbortSignal, trail: Trail): Promise<void> => {
    trail.url = checked(delivery.url, undefined, trail);
    for (let hops = 0; ; hops++) {
      const { status, location } = await post(trail.url, delivery, signal);
      trail.status = status;
      if (!REDIRECT_STATUSES.has(status) || !location) return;
      const next = checked(location, trail.url, trail);
      if (hops >= maxRedirects) throw new Refusal(`more than ${maxRedirects} redirects`);
      trail.url = next;
    }
  };

  /** The outcome's `error` for something thrown during an attempt. */
  const describe = (err: unknown, trail: Trail, timedOut: boolean, caller: AbortSignal | undefined): string => {
    if (timedOut) return `timed out after ${timeoutMs} ms`;
    if (caller?.aborted) return 'cancelled';
    if (err instanceof Refusal) return err.message;
    const failure = toFetchError(err, trail.url?.host ?? 'the webhook host');
    if (failure.tag === 'CRAWL_TIMEOUT') return `timed out after ${timeoutMs} ms`;
    if (failure.tag !== 'CRAWL_PRIVATE_ADDRESS') return failure.message;
    const where = trail.redirects.length > 0 && trail.url ? `redirect to ${quotedUrl(trail.url)} ` : '';
    return `${where}refused: ${failure.message}`;
  };

  const send = async (delivery: WebhookDelivery, caller?: AbortSignal): Promise<AttemptOutcome> => {
    const startedAt = performance.now();
    const trail: Trail = { url: undefined, status: null, redirects: [] };
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    caller?.addEventListener('abort', onAbort, { once: true });
    let error: string | null = null;
    try {
      if (caller?.aborted) throw caller.reason;
      await follow(delivery, controller.signal, trail);
      if (!isOkStatus(trail.status)) error = `HTTP ${trail.status}`;
    } catch (err) {
      error = describe(err, trail, timedOut, caller);
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    }
    const durationMs = Math.round(performance.now() - startedAt);
    return { ok: error === null, status: trail.status, error, durationMs, redirects: trail.redirects };
  };

  return { refusal, send, close: () => agent.close(), timeoutMs };
}
