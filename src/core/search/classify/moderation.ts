/**
 * The moderation classifier behind `/search`'s `moderation: true`: a curated lexicon scored by density
 * (moderation-lexicon.ts), adult domains, the `rating` meta tag and brand look-alike hosts. Pure.
 */
import {
  ADULT_HOST,
  ADULT_RATINGS,
  ADULT_TLDS,
  LEXICON,
  PHISHED_BRANDS,
  type LexiconGroup,
  type ModerationGroupId,
} from './moderation-lexicon.js';
import { createLexiconPrefilter } from './lexicon-prefilter.js';
import { signalsOf, type ClassifiableDocument, type Signals } from './signals.js';

/** The verdict: unsafe or not, and every reason that made it unsafe (empty when safe). */
export interface ModerationVerdict {
  unsafe: boolean;
  reasons: string[];
}

/** One lexicon group's figures on a document. */
export interface GroupScore {
  group: ModerationGroupId;
  score: number;
  perThousand: number;
  flagged: boolean;
  /** True when a counter-cue (reporting, research, help) tripled the thresholds. */
  countered: boolean;
}

/** Words read from the text: enough for a long page's density, bounded for a huge one. */
const MAX_TEXT = 100_000;
/** Short texts count as this many words, so one phrase on a near-empty page is not a high density. */
const MIN_WORDS = 200;
const TITLE_WEIGHT = 3;
const URL_WEIGHT = 2;

function termPattern(terms: string[]): RegExp | null {
  if (terms.length === 0) return null;
  const body = terms.map((t) => t.replace(/ /g, '[\\s_-]+')).join('|');
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${body})(?![\\p{L}\\p{N}])`, 'giu');
}

const PATTERNS = new Map(LEXICON.map((g) => [g.id, { strong: termPattern(g.strong), weak: termPattern(g.weak) }]));

const TERMS = LEXICON.flatMap((g) => [...g.strong, ...g.weak]);
/** Every group's terms in one pattern, without the word boundaries. */
const ANY_TERM_SOURCE = TERMS.map((t) => t.replace(/ /g, '[\\s_-]+')).join('|');

/**
 * Whether a text may hold a lexicon term: false only when every group's pattern finds nothing in it,
 * so the groups' own patterns (dozens of scans) are skipped for it, as for most pages. The prefilter
 * tries the terms only at word starts whose first characters begin a term (a whole-text scan of 19% of
 * indexing time before); scanning with `ANY_TERM` is the fallback for term syntax it does not read.
 */
const ANY_TERM = new RegExp(ANY_TERM_SOURCE, 'iu');
const mayHoldTerm: (text: string) => boolean =
  createLexiconPrefilter(TERMS, new RegExp(`(?:${ANY_TERM_SOURCE})`, 'iuy')) ?? ((text) => ANY_TERM.test(text));

/** True unless no lexicon group can score on the title, URL words or text (the first `MAX_TEXT` characters). */
export function mayMatchLexicon(s: Signals): boolean {
  return mayHoldTerm(s.title) || mayHoldTerm(urlWords(s)) || mayHoldTerm(s.text.slice(0, MAX_TEXT));
}

function weighted(group: LexiconGroup, text: string): number {
  const { strong, weak } = PATTERNS.get(group.id)!;
  const hits = (re: RegExp | null) => (re ? (text.match(re) ?? []).length : 0);
  return hits(strong) + hits(weak) * 0.5;
}

function urlWords(s: Signals): string {
  let path = s.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: read the path as it is
  }
  return `${s.host} ${path}`.replace(/[/?&=.+]+/g, ' ');
}

/** Each lexicon group's score and density on a document, and whether it passed its thresholds. */
export function moderationScores(s: Signals): GroupScore[] {
  const text = s.text.slice(0, MAX_TEXT);
  const words = Math.max(MIN_WORDS, text.split(/\s+/).filter(Boolean).length);
  const url = urlWords(s);
  return LEXICON.map((group) => {
    const score = weighted(group, s.title) * TITLE_WEIGHT + weighted(group, url) * URL_WEIGHT + weighted(group, text);
    const perThousand = Math.round((score / words) * 10_000) / 10;
    const countered = group.counter?.test(`${s.title}\n${text}`) ?? false;
    const factor = countered ? 3 : 1;
    const flagged = score >= group.minScore * factor && perThousand >= group.minPerThousand * factor;
    return { group: group.id, score, perThousand, flagged, countered };
  });
}

/** The registrable part of a host, roughly: the last two labels, three under `co.uk`-style suffixes. */
function registrable(host: string): string {
  const labels = host.split('.');
  const n = labels.length >= 3 && /^(?:co|com|org|net|ac|gov|edu)$/.test(labels[labels.length - 2]!) ? 3 : 2;
  return labels.slice(-n).join('.');
}

const LURE_PARTS =
  /^(?:login|signin|logon|secure|security|verify|verification|account|accounts|update|support|auth|wallet|billing|confirm|unlock|recovery|service)$/;

/**
 * A brand used as a name part of a host off the brand's own domain, next to a lure word or its own
 * domain name (paypal.com.verify-login.xyz, secure-netflix-billing.com); apple.stackexchange.com is not.
 */
export function brandLookalike(host: string): string | undefined {
  const own = registrable(host).split('.')[0];
  const parts = host.split(/[.-]/);
  const lure = parts.some((p) => LURE_PARTS.test(p));
  return PHISHED_BRANDS.find(
    (brand) => own !== brand && parts.includes(brand) && (lure || host.includes(`${brand}.com.`)),
  );
}

const CREDENTIALS = /\b(?:password|passcode|sign[ -]?in|log[ -]?in|verify|card number|seed phrase)\b/i;

/** Reasons from the URL and the page's declarations, independent of the text's wording. */
function declaredReasons(s: Signals): string[] {
  const reasons: string[] = [];
  const tld = s.host.split('.').pop() ?? '';
  if (ADULT_TLDS.includes(tld)) reasons.push(`sexual: .${tld} top-level domain`);
  else if (ADULT_HOST.test(s.host)) reasons.push('sexual: adult site name in the host');
  const rating = s.evidence.rating;
  if (rating && ADULT_RATINGS.some((r) => rating.split(/[\s,;]+/).includes(r))) {
    reasons.push(`sexual: rating meta tag "${rating}"`);
  }
  const brand = brandLookalike(s.host);
  if (brand && CREDENTIALS.test(`${s.title}\n${s.head}`)) {
    reasons.push(`malware-phishing: ${brand} look-alike host asking for credentials`);
  }
  return reasons;
}

/** Whether a document is unsafe, with the reasons (lexicon groups over their thresholds, domain, rating). */
export function classifyModeration(doc: ClassifiableDocument): ModerationVerdict {
  return moderationOf(signalsOf(doc));
}

/** `classifyModeration` of a document whose signals are computed already. */
export function moderationOf(s: Signals): ModerationVerdict {
  const reasons = declaredReasons(s);
  if (!mayMatchLexicon(s)) return { unsafe: reasons.length > 0, reasons };
  for (const g of moderationScores(s)) {
    if (g.flagged) reasons.push(`${g.group}: lexicon score ${g.score} (${g.perThousand} per 1000 words)`);
  }
  return { unsafe: reasons.length > 0, reasons };
}
