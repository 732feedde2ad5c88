/**
 * Grounding of synthesized output: for each output field, the sources cited for it (only results of
 * the request, deduplicated) and a confidence from how many sources back it and how much of the
 * field's wording those sources contain. The rule is documented in docs/synthesis.md.
 */
import { terms } from '../text/tokenize.js';

/** A numbered source the answer was written from: a search result and the evidence text shown to the model. */
export interface Source {
  /** 1-based number the model cites (`[n]`). */
  n: number;
  url: string;
  title: string;
  publishedDate: string | null;
  /** What the model read of the page: query-focused highlights (or the title alone). */
  evidence: string;
}

export interface GroundingEntry {
  field: string;
  citations: { url: string; title: string }[];
  confidence: 'low' | 'medium' | 'high';
}

/** Share of a value's words (stemmed, stopwords out) found in the cited evidence at which support counts as strong / some. */
export const STRONG_SUPPORT = 0.6;
export const SOME_SUPPORT = 0.3;

/**
 * Confidence of one field: `high` when two or more cited sources back it and at least 60% of its words
 * are in them (or one source holds 90%), `medium` when one or more cited sources hold at least 30%,
 * else `low` (nothing cited, or the sources barely contain what the field says).
 */
export function confidenceOf(value: unknown, cited: Source[]): GroundingEntry['confidence'] {
  if (cited.length === 0) return 'low';
  const support = supportOf(value, cited);
  if ((cited.length >= 2 && support >= STRONG_SUPPORT) || support >= 0.9) return 'high';
  return support >= SOME_SUPPORT ? 'medium' : 'low';
}

/** Share of the value's words that occur in the cited sources' evidence (1 for a value with no words). */
export function supportOf(value: unknown, cited: Source[]): number {
  const words = [...new Set(terms(textOf(value)))];
  if (words.length === 0) return 1;
  const seen = new Set(cited.flatMap((s) => terms(`${s.title} ${s.evidence}`)));
  return words.filter((w) => seen.has(w)).length / words.length;
}

function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value).replace(/[{}[\]":,]/g, ' ');
  return String(value);
}

/** The sources among `sources` numbered `numbers`, each once, in citation order (unknown numbers dropped). */
export function citedSources(numbers: readonly number[], sources: readonly Source[]): Source[] {
  const byN = new Map(sources.map((s) => [s.n, s]));
  const out: Source[] = [];
  const urls = new Set<string>();
  for (const n of numbers) {
    const s = byN.get(n);
    if (s && !urls.has(s.url)) {
      urls.add(s.url);
      out.push(s);
    }
  }
  return out;
}

/** One grounding entry for `field` holding `value`, citing `numbers`. */
export function groundField(
  field: string,
  value: unknown,
  numbers: readonly number[],
  sources: readonly Source[],
): GroundingEntry {
  const cited = citedSources(numbers, sources);
  return {
    field,
    citations: cited.map((s) => ({ url: s.url, title: s.title })),
    confidence: confidenceOf(value, cited),
  };
}

/** The value at a grounding path (`content`, `content.name`, `content.items[0].name`), or undefined. */
export function valueAt(root: unknown, path: string): unknown {
  const parts = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let node: unknown = { content: root };
  for (const part of parts) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = part.startsWith('[') ? Number(part.slice(1, -1)) : part;
    if (typeof key === 'number' && !Array.isArray(node)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/**
 * Grounding of an object answer from the model's `citations` map (field path → source numbers): one
 * entry per top-level field (uncited fields get no citations and `low`), plus one per deeper path the
 * model cited that exists in the content. Paths may be given with or without the `content.` prefix.
 */
export function groundObject(
  content: Record<string, unknown>,
  citations: Record<string, unknown>,
  sources: readonly Source[],
): GroundingEntry[] {
  const byPath = new Map<string, number[]>();
  for (const [raw, list] of Object.entries(citations ?? {})) {
    const path = raw === 'content' || raw.startsWith('content.') || raw.startsWith('content[') ? raw : `content.${raw}`;
    const numbers = (Array.isArray(list) ? list : [list]).map(Number).filter((n) => Number.isInteger(n));
    if (valueAt(content, path) !== undefined) byPath.set(path, [...(byPath.get(path) ?? []), ...numbers]);
  }
  const entries: GroundingEntry[] = [];
  for (const key of Object.keys(content)) {
    const path = `content.${key}`;
    const own = byPath.get(path) ?? [];
    // a field whose parts were cited is backed by their sources
    const parts = [...byPath]
      .filter(([p]) => p.startsWith(`${path}.`) || p.startsWith(`${path}[`))
      .flatMap(([, n]) => n);
    entries.push(groundField(path, content[key], [...own, ...parts], sources));
  }
  for (const [path, numbers] of byPath) {
    if (path === 'content' || entries.some((e) => e.field === path)) continue;
    entries.push(groundField(path, valueAt(content, path), numbers, sources));
  }
  return entries;
}
