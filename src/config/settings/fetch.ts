/** Settings of fetching pages: the user agent, the SSRF guard, robots.txt, size caps, PDF reading limits, admission and the browser. */
import { z } from 'zod';
import { list, booleanish, isIpOrCidr, integer } from './fields.js';

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const FETCH_SETTINGS = {
  userAgent: {
    env: 'TRAWL_USER_AGENT',
    flag: '--user-agent',
    schema: z.string().min(1).max(512),
    default: undefined,
    doc: 'User-Agent of every fetch. Default: `Trawl/<version> (+https://github.com/trawl)`; robots.txt rules for `Trawl` apply either way.',
  },
  allowPrivateNetwork: {
    env: 'TRAWL_ALLOW_PRIVATE_NETWORK',
    flag: '--allow-private-network',
    schema: booleanish,
    default: false,
    doc: 'Let fetches reach loopback, private, link-local and metadata addresses (local docs). Off by default: the SSRF guard refuses them on every redirect hop.',
  },
  privateAllowlist: {
    env: 'TRAWL_PRIVATE_ALLOWLIST',
    flag: '--private-allowlist',
    schema: list.refine((items) => items.every(isIpOrCidr), 'each entry must be an IP address or a CIDR block'),
    default: [] as string[],
    doc: 'Comma-separated IPs or CIDRs (e.g. `10.1.2.0/24`) that page fetches may reach although they are private; everything else private stays refused. It does not apply to monitor webhooks, which must reach a public endpoint (only `TRAWL_ALLOW_INSECURE_WEBHOOKS` lifts that).',
  },
  robots: {
    env: 'TRAWL_ROBOTS',
    flag: '--robots',
    schema: booleanish,
    default: true,
    doc: 'Obey robots.txt (RFC 9309) for every automated fetch. Turn off only for sites you own.',
  },
  fetchMaxBytes: {
    env: 'TRAWL_FETCH_MAX_BYTES',
    flag: '--fetch-max-bytes',
    schema: integer(64 * 1024, 512 * 1024 * 1024),
    default: 16 * 1024 * 1024,
    doc: 'Largest response body a fetch reads, in bytes (after decompression); larger pages fail with `CRAWL_TOO_LARGE`.',
  },
  documentMaxInflatedBytes: {
    env: 'TRAWL_DOCUMENT_MAX_INFLATED_BYTES',
    flag: '--document-max-inflated-bytes',
    schema: integer(1024 * 1024, 2 * 1024 * 1024 * 1024),
    default: 128 * 1024 * 1024,
    doc: "Most bytes a PDF's compressed streams may expand to while it is read, all streams together (Flate, LZW, Brotli, object streams, nested filters); past it the page fails with `CRAWL_TOO_LARGE`. `TRAWL_FETCH_MAX_BYTES` bounds the download, this what it inflates to (docs/contents.md).",
  },
  documentParseTimeoutMs: {
    env: 'TRAWL_DOCUMENT_PARSE_TIMEOUT_MS',
    flag: '--document-parse-timeout-ms',
    schema: integer(100, 600_000),
    default: 20_000,
    doc: 'Longest reading one PDF may take in its worker thread; past it the thread is stopped and the page fails with `CRAWL_TIMEOUT`.',
  },
  documentParseMemoryMb: {
    env: 'TRAWL_DOCUMENT_PARSE_MEMORY_MB',
    flag: '--document-parse-memory-mb',
    schema: integer(64, 16_384),
    default: 256,
    doc: 'JavaScript heap (MB) of each PDF worker thread (its `resourceLimits`); a PDF that needs more stops the thread and fails with `CRAWL_TOO_LARGE`. Decoded streams are outside it, under `TRAWL_DOCUMENT_MAX_INFLATED_BYTES`.',
  },
  documentParseThreads: {
    env: 'TRAWL_DOCUMENT_PARSE_THREADS',
    flag: '--document-parse-threads',
    schema: integer(1, 64),
    default: 2,
    doc: 'Worker threads reading PDFs at once; more PDFs wait for one. Two, so that one slow PDF (until its deadline) never holds up the others; each can hold its heap and the inflate cap.',
  },
  fetchConcurrency: {
    env: 'TRAWL_FETCH_CONCURRENCY',
    flag: '--fetch-concurrency',
    schema: integer(1, 1024),
    default: 16,
    doc: "Live fetches of `/contents` running at once; more wait in the admission queue, served round-robin between teams, the wait counted against each fetch's `livecrawlTimeout` (`x-svc-queued`, `x-svc-queue-ms`; docs/operations.md).",
  },
  browser: {
    env: 'TRAWL_BROWSER',
    flag: '--browser',
    schema: z.string().min(1),
    default: undefined,
    doc: 'Path of a Chromium executable (e.g. `/usr/bin/chromium`) to render JavaScript-only pages. Without it such pages fail with `CRAWL_NEEDS_BROWSER`.',
  },
} as const;
