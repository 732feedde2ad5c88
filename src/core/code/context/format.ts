/**
 * The `/context` response: ranked code chunks as one Markdown string — where each snippet comes from,
 * the few lines of prose or doc comment that explain it, and the code fenced with its language — that
 * never exceeds the token budget as a real tokenizer counts it. Near-duplicates are merged first.
 */
import type { TokenCounter } from '../../../lib/tokens.js';
import type { CodeHit } from '../index/code-index.js';

/** Counts tokens the way the caller's model will (gpt-tokenizer in production). */
export type { TokenCounter };

/** Lines of doc comment or prose shown above a snippet at most. */
export const DOC_LINES = 6;
/** With `tokensNum: "dynamic"`: snippets scoring at least this share of the best one are relevant… */
export const DYNAMIC_RELEVANCE = 0.6;
/** …at most this many of them, within this many tokens. */
export const DYNAMIC_MAX_SNIPPETS = 8;
export const DYNAMIC_MAX_TOKENS = 6000;
/** Two snippets whose code shares this share of its lines (after trimming) are one. */
export const DUPLICATE_LINES = 0.8;

const fenceFor = (code: string) => '`'.repeat(Math.max(3, ...(code.match(/`+/g) ?? []).map((m) => m.length + 1)));

/** Where a chunk comes from: `source/path:start-end`, or the page URL for documentation examples. */
export function locationOf(h: CodeHit): string {
  if (/^https?:\/\//.test(h.path)) return h.path;
  return `${h.source}/${h.path}:${h.startLine}-${h.endLine}`;
}

function header(h: CodeHit, alsoIn: string[]): string {
  const name = h.symbol ? `${h.symbol} — ` : '';
  const also = alsoIn.length ? ` (also in ${alsoIn.join(', ')})` : '';
  return `## ${name}${locationOf(h)}${also}`;
}

function docLines(h: CodeHit): string {
  const doc = (h.doc ?? '').trim();
  // a doc comment already inside the code (markers aside) is not repeated
  const first = doc.split('\n')[0]!.trim();
  if (!doc || h.code.includes(first)) return '';
  const lines = doc.split('\n').map((l) => l.trimEnd());
  const shown = lines.slice(0, DOC_LINES);
  return `${shown.join('\n')}${lines.length > DOC_LINES ? '\n…' : ''}\n`;
}

/** A snippet's text, its code cut to `maxLines` lines when given. */
function render(h: CodeHit, alsoIn: string[], maxLines?: number): string {
  const lines = h.code.replace(/\s+$/, '').split('\n');
  const code =
    maxLines !== undefined && maxLines < lines.length
      ? [...lines.slice(0, maxLines), '…'].join('\n')
      : lines.join('\n');
  const fence = fenceFor(code);
  return `${header(h, alsoIn)}\n${docLines(h)}${fence}${h.language}\n${code}\n${fence}\n`;
}

const normalized = (code: string) =>
  new Set(
    code
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 2),
  );

/** Hits with near-duplicates folded into the best-ranked copy (which lists where else it is). */
export function mergeDuplicates(hits: CodeHit[]): { hit: CodeHit; alsoIn: string[] }[] {
  const kept: { hit: CodeHit; alsoIn: string[]; lines: Set<string> }[] = [];
  for (const hit of hits) {
    const lines = normalized(hit.code);
    const twin = kept.find((k) => {
      const shared = [...lines].filter((l) => k.lines.has(l)).length;
      return shared / Math.max(1, Math.min(lines.size, k.lines.size)) >= DUPLICATE_LINES && lines.size > 0;
    });
    if (twin) twin.alsoIn.push(locationOf(hit));
    else kept.push({ hit, alsoIn: [], lines });
  }
  return kept.map(({ hit, alsoIn }) => ({ hit, alsoIn }));
}

/**
 * The snippets for a budget. A number is a hard ceiling; `dynamic` keeps the snippets scoring at least
 * `DYNAMIC_RELEVANCE` of the best (at most `DYNAMIC_MAX_SNIPPETS`) and gives them what they need, up to
 * `DYNAMIC_MAX_TOKENS`. A snippet that does not fit whole is cut to the lines that fit (when at least a
 * few do); then the response ends.
 */
export function formatContext(
  hits: CodeHit[],
  tokensNum: number | 'dynamic',
  count: TokenCounter,
): { text: string; snippets: CodeHit[]; tokens: number } {
  let merged = mergeDuplicates(hits);
  let budget: number;
  if (tokensNum === 'dynamic') {
    const best = merged[0]?.hit.score ?? 0;
    merged = merged.filter((m) => m.hit.score >= best * DYNAMIC_RELEVANCE).slice(0, DYNAMIC_MAX_SNIPPETS);
    budget = DYNAMIC_MAX_TOKENS;
  } else budget = tokensNum;
  const parts: string[] = [];
  const snippets: CodeHit[] = [];
  let used = 0;
  for (const { hit, alsoIn } of merged) {
    const sep = parts.length ? '\n' : '';
    const whole = sep + render(hit, alsoIn);
    const cost = count(whole);
    if (used + cost <= budget) {
      parts.push(whole);
      snippets.push(hit);
      used += cost;
      continue;
    }
    const cut = largestFit(hit, alsoIn, sep, budget - used, count);
    if (cut) {
      parts.push(cut.text);
      snippets.push(hit);
      used += cut.tokens;
    }
    break;
  }
  // a tokenizer may count a joined text a token or two apart from its parts: the whole is what counts
  let text = parts.join('');
  let tokens = count(text);
  while (tokens > budget && parts.length > 0) {
    parts.pop();
    snippets.pop();
    text = parts.join('');
    tokens = count(text);
  }
  return { text, snippets, tokens };
}

/** The snippet cut to the most code lines that fit `room` tokens (at least 3 lines), by binary search. */
function largestFit(hit: CodeHit, alsoIn: string[], sep: string, room: number, count: TokenCounter) {
  let lo = 3;
  let hi = hit.code.split('\n').length - 1;
  let best: { text: string; tokens: number } | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const text = sep + render(hit, alsoIn, mid);
    const tokens = count(text);
    if (tokens <= room) {
      best = { text, tokens };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
