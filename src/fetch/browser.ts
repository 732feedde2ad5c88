/**
 * Headless rendering for JavaScript-only pages: one Chromium (Debian's, driven by playwright-core,
 * loaded on first use) shared by all renders, a fresh context per page, and every request the page makes
 * sent through the guarded undici Agent (browser-proxy.ts). Images, media and fonts are not loaded;
 * WebSockets and service workers are off.
 */
import type { Browser, BrowserContext, Response } from 'playwright-core';
import { Agent } from 'undici';
import type { Logger } from '../lib/logger.js';
import { quotedUrl } from '../lib/safe-text.js';
import { createAddressGuard, PAGE_GUARD_LIFTED_BY, type AddressGuardOptions } from './address-guard.js';
import { proxyPageRequests } from './browser-proxy.js';
import { createHostLimiter } from './host-limiter.js';
import { FetchError, type BrowserRenderer, type RenderedPage } from './types.js';
import { logUrl } from './url-policy.js';

export interface BrowserRendererOptions {
  /** `TRAWL_BROWSER`, e.g. Debian's `/usr/bin/chromium`. */
  executablePath: string;
  /** The same guard settings as the fetcher's. */
  guard: AddressGuardOptions;
  userAgent?: string;
  logger?: Logger;
  /** Pages rendered at once. Default 2. */
  maxPages?: number;
  /** Longest wait for network idle after the load event. Default 3 s. */
  idleTimeoutMs?: number;
  /** Cap on each resource the page loads. Default 10 MiB. */
  maxResourceBytes?: number;
}

const MAX_REDIRECTS = 10;

/**
 * A rendering failure in Trawl's words: the browser's network error code or a time-out, never the rest
 * of its message (a page's script can word an error that reaches it).
 */
function renderError(url: string, err: unknown): FetchError {
  if (err instanceof FetchError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const netError = /\bnet::ERR_[A-Z_]{1,60}\b/.exec(message)?.[0];
  const timedOut = err instanceof Error && err.name === 'TimeoutError';
  const reason = netError ?? (timedOut ? 'it did not finish loading in time' : 'the browser reported an error');
  return new FetchError('CRAWL_NEEDS_BROWSER', `${quotedUrl(url)} could not be rendered: ${reason}`, null, {
    cause: err,
  });
}

/** Creates a renderer; Chromium starts on the first render. `close()` stops it. */
export function createBrowserRenderer(options: BrowserRendererOptions): BrowserRenderer & {
  renderPage(url: string, o: { timeoutMs: number; signal?: AbortSignal }): Promise<RenderedPage>;
} {
  const guard = createAddressGuard({ liftedBy: PAGE_GUARD_LIFTED_BY, ...options.guard });
  const agent = new Agent({
    connect: guard.connector({ timeoutMs: 10_000 }),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const slots = createHostLimiter();
  const idleTimeoutMs = options.idleTimeoutMs ?? 3_000;
  let launching: Promise<Browser> | undefined;
  let closed = false;

  const browser = (): Promise<Browser> => {
    if (!launching) {
      const starting = (async () => {
        const { chromium } = await import('playwright-core');
        const launched = await chromium.launch({
          executablePath: options.executablePath,
          headless: true,
          args: [
            '--disable-dev-shm-usage',
            '--disable-gpu',
            '--no-first-run',
            '--mute-audio',
            '--disable-background-networking',
            // WebRTC would otherwise reach addresses outside the routed HTTP path.
            '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
          ],
        });
        launched.on('disconnected', () => {
          if (launching === starting) launching = undefined;
        });
        options.logger?.info({ executablePath: options.executablePath }, 'browser started');
        return launched;
      })();
      launching = starting;
      starting.catch(() => {
        if (launching === starting) launching = undefined;
      });
    }
    return launching.catch((err: unknown) => {
      const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
      throw new FetchError('CRAWL_NEEDS_BROWSER', `the browser at ${options.executablePath} did not start: ${message}`);
    });
  };

  /** Navigates to `url`, following main-document redirects as new navigations (each hop routed and guarded). */
  const renderIn = async (context: BrowserContext, url: string, deadline: number): Promise<RenderedPage> => {
    let failed: FetchError | undefined;
    let redirectTo: string | undefined;
    const requests = new AbortController();
    await proxyPageRequests(context, {
      agent,
      guard,
      maxResourceBytes: options.maxResourceBytes ?? 10 * 1024 * 1024,
      signal: requests.signal,
      onDocumentRedirect: (next) => (redirectTo = next),
      onDocumentError: (error) => (failed ??= error),
    });
    const page = await context.newPage();
    try {
      let response: Response | null = null;
      for (let target = url, hops = 0; ; hops++) {
        redirectTo = undefined;
        response = await page.goto(target, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) });
        if (failed) throw failed;
        if (!redirectTo) break;
        if (hops >= MAX_REDIRECTS)
          throw new FetchError('CRAWL_TOO_MANY_REDIRECTS', `more than ${MAX_REDIRECTS} redirects`);
        target = redirectTo;
      }
      const idle = Math.min(idleTimeoutMs, deadline - Date.now());
      if (idle > 0) await page.waitForLoadState('networkidle', { timeout: idle }).catch(() => undefined);
      return { html: await page.content(), url: page.url(), status: response?.status() ?? 200 };
    } catch (err) {
      throw failed ?? err;
    } finally {
      requests.abort();
    }
  };

  const renderPage = async (url: string, { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal }) => {
    if (closed) throw new FetchError('CRAWL_NEEDS_BROWSER', 'the browser is closed');
    const deadline = Date.now() + timeoutMs;
    return slots.run(
      'pages',
      { concurrency: options.maxPages ?? 2, delayMs: 0 },
      async () => {
        const context = await (
          await browser()
        ).newContext({
          ...(options.userAgent ? { userAgent: options.userAgent } : {}),
          serviceWorkers: 'block',
          acceptDownloads: false,
        });
        const onAbort = () => void context.close().catch(() => undefined);
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          return await renderIn(context, url, deadline);
        } catch (err) {
          if ((err as Error)?.name === 'TimeoutError') {
            throw new FetchError('CRAWL_LIVECRAWL_TIMEOUT', `${logUrl(url)} was not rendered within ${timeoutMs} ms`);
          }
          throw renderError(url, err);
        } finally {
          signal?.removeEventListener('abort', onAbort);
          await context.close().catch(() => undefined);
        }
      },
      { signal },
    );
  };

  return {
    renderPage,
    render: async (url, o) => (await renderPage(url, o)).html,
    async close() {
      if (closed) return;
      closed = true;
      slots.close();
      const running = launching;
      launching = undefined;
      if (running) await (await running.catch(() => undefined))?.close();
      await agent.destroy();
    },
  };
}
