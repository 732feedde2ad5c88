/**
 * Small metadata documents fetched for the authorization server (a client's Client ID Metadata
 * Document, an identity provider's issuer metadata and keys, and its token endpoint's answer): a WHATWG `fetch` for oidc-provider's
 * `fetch` hook, through the SSRF guard (loopback and private addresses refused unless the operator's
 * TRAWL_ALLOW_PRIVATE_NETWORK / TRAWL_PRIVATE_ALLOWLIST opens them, as for page fetches), with a time
 * limit, a size cap and no redirects followed (a 3xx comes back as it is).
 */
import { Agent } from 'undici';
import { createAddressGuard, PAGE_GUARD_LIFTED_BY, type HostLookup } from './address-guard.js';
import { toFetchError } from './errors.js';
import { FetchError } from './types.js';
import { parseFetchUrl } from './url-policy.js';

export interface MetadataFetchOptions {
  guard: { allowPrivateNetwork: boolean; privateAllowlist: readonly string[]; lookup?: HostLookup };
  userAgent: string;
  /** Whole-fetch bound (connect, headers, body). Default 5 s. */
  timeoutMs?: number;
  /** Largest body read. Default 64 KiB. */
  maxBytes?: number;
}

export interface MetadataFetch {
  /**
   * A `fetch` for GETs of small JSON documents (and the form POST of a token request); throws a
   * `FetchError` (guard, timeout, size) with a plain message.
   */
  fetch(
    url: string | URL,
    init?: { method?: string; headers?: Record<string, string> | Headers; signal?: AbortSignal; body?: unknown },
  ): Promise<Response>;
  close(): Promise<void>;
}

export function createMetadataFetch(options: MetadataFetchOptions): MetadataFetch {
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const guard = createAddressGuard({ ...options.guard, liftedBy: PAGE_GUARD_LIFTED_BY });
  const agent = new Agent({
    connect: guard.connector({ timeoutMs }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  const read = async (body: AsyncIterable<Buffer>, host: string): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) throw new FetchError('CRAWL_TOO_LARGE', `${host} sent more than ${maxBytes} bytes of metadata`); // prettier-ignore
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  };

  return {
    async fetch(raw, init = {}) {
      const url = parseFetchUrl(String(raw));
      guard.checkHost(url.hostname);
      const method = (init.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && method !== 'POST') throw new FetchError('UNSUPPORTED_URL', `metadata is fetched with GET, not ${method}`); // prettier-ignore
      const sent = method === 'POST' && typeof init.body === 'string' ? init.body : undefined;
      const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs); // prettier-ignore
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      headers['user-agent'] = options.userAgent;
      try {
        const res = await agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method, headers, signal, body: sent }); // prettier-ignore
        const body = await read(res.body, url.host);
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') out.set(name, value);
          else if (Array.isArray(value)) for (const v of value) out.append(name, v);
        }
        return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : body, { status: res.statusCode, headers: out }); // prettier-ignore
      } catch (err) {
        throw toFetchError(err, url.host, { connectMs: timeoutMs, headersMs: timeoutMs, bodyMs: timeoutMs });
      }
    },
    close: () => agent.close(),
  };
}
