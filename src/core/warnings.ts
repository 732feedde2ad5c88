/**
 * The one list of warnings a user should see: conditions that leave an answer poorer than it could be
 * without making it an error. Services report them through `ctx.onWarning`; the MCP door sends them as
 * log notifications (docs/mcp.md), and answers whose wire shape has `warnings` (/search, /findSimilar)
 * carry them, collected once per call (`collectWarnings`); the MCP text says them too.
 */

/** Each warning code with the message a user reads: what happened and what to do about it. */
export const WARNINGS = {
  INDEX_EMPTY:
    'The local index holds no documents and no web-search provider is configured, so there was nothing to search ' +
    '(and nothing is charged). Add pages with `trawl crawl URL` or `trawl import FILE`, or configure a provider: ' +
    'TRAWL_SEARXNG_URL, TRAWL_BRAVE_API_KEY or TRAWL_UPSTREAM_URL.',
  NO_SEARCH_PROVIDER:
    'No results in the local index, and no web-search provider is configured to ask. Configure TRAWL_SEARXNG_URL, ' +
    'TRAWL_BRAVE_API_KEY or TRAWL_UPSTREAM_URL to search the web, or add pages with `trawl crawl URL`.',
  NOTHING_TO_COMPARE:
    'The local index holds no other documents to compare this page with: findSimilar ranks the local index only, ' +
    'so there was nothing to search (and nothing is charged). Add pages with `trawl crawl URL` or `trawl import FILE`.',
  PROVIDER_FAILED:
    'A web-search provider failed or timed out; the results come from the other sources. See the server log for the reason.',
  MODEL_MISSING:
    'No language model is available for this call, so the answer or summary is extractive (sentences picked from ' +
    'the pages) and deep searches plan no extra queries. Configure TRAWL_MODEL_BASE_URL and TRAWL_MODEL for written ones.',
  MODEL_FAILED:
    'The language model failed, so what it was to write (the answer, or a summary) is missing; the rest of the ' +
    'answer is complete.',
  CODE_MODEL_MISSING:
    'The code model could not be loaded (its file is missing, unreadable or not a model: see the server log), so ' +
    'code context is ranked by words only. Reinstall Trawl, or set TRAWL_CODE_MODEL to a model file (`off` ranks ' +
    'by words on purpose).',
  FETCH_REFUSED:
    'A page was not fetched because policy refuses it: a private-network address (TRAWL_ALLOW_PRIVATE_NETWORK) ' +
    "or the site's robots.txt.",
} as const;

/** One of the warning codes. */
export type WarningCode = keyof typeof WARNINGS;

/** The codes, in the list's order (the wire schemas' enum). */
export const WARNING_CODES = Object.keys(WARNINGS) as [WarningCode, ...WarningCode[]];

/** One warning: its code and the message, with what it concerns when there is something to name. */
export interface Warning {
  code: WarningCode;
  message: string;
}

/** The warning `code`, its message followed by `detail` (the provider, the URL) when given. */
export function warning(code: WarningCode, detail?: string): Warning {
  return { code, message: detail ? `${WARNINGS[code]} (${detail})` : WARNINGS[code] };
}

/**
 * A context like `ctx` whose `onWarning` also keeps each distinct warning (by code and message) in
 * `warnings`, in the order first reported, and passes every one on to `ctx.onWarning`.
 */
export function collectWarnings<C extends { onWarning?: (w: Warning) => void }>(
  ctx: C,
): { ctx: C; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const seen = new Set<string>();
  const onWarning = (w: Warning) => {
    const key = `${w.code}\n${w.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      warnings.push(w);
    }
    ctx.onWarning?.(w);
  };
  return { ctx: { ...ctx, onWarning }, warnings };
}
