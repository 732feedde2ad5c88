/**
 * What an element's class and id say about it: a section guess (navigation, sidebar, banner...), a
 * comment/review thread, an image caption. Matched per token on word boundaries and cached per
 * class/id string, since pages repeat the same class lists thousands of times.
 */
import type { SectionKind } from '../page.js';

const B = '(?:^|[_-])';
const E = '(?=$|[_-])';
const words = (list: string) => new RegExp(`${B}(?:${list})${E}`);

const PATTERNS: [SectionKind, RegExp][] = [
  [
    'metadata',
    words(
      'breadcrumbs?|byline|by-line|author|authors|dateline|dates?|timestamp|posted-on|published|pubdate|post-meta|' +
        'entry-meta|article-meta|meta|metadata|tags|tag-list|taglist|tagcloud|categories|cat-links|tags-links|' +
        'entry-footer|post-footer|article-footer|user-info|userinfo|user-details|userdetails|user-card|usercard|' +
        'user-meta|user-extras|userextras|postprofile|postauthor|post-author|avatar|signature|message-user|' +
        'message-user-details|poster|post-info|postinfo|post-signature',
    ),
  ],
  [
    'banner',
    words(
      'cookies?|cookie[a-z]*|consent|gdpr|newsletter|subscribe|subscription|signup|advert[a-z]*|' +
        'ads?|adslot|adunit|sponsor[a-z]*|paywall|popup|modal|overlay|announcement|interstitial|share|sharing|' +
        'social|sharedaddy|addthis|donate|donation',
    ),
  ],
  [
    'navigation',
    words('nav|navbar|navigation|menu|menubar|mainmenu|megamenu|pagination|pager|skip-link|skiplink|toc|subnav'),
  ],
  ['footer', words('footer|colophon|copyright|site-info|disclaimers?|legal|fine-?print')],
  [
    'sidebar',
    words(
      'sidebar|sidenav|widgets|widget-area|related|recommended|recommendations|rail|aside|more-[a-z]+|read-next|' +
        'trending|most-popular|also-[a-z]+|you-may-like|recirc[a-z]*',
    ),
  ],
  ['header', /^(?:header|site-header|global-header|main-header|top-header|masthead|topbar|top-bar|site-branding)$/],
];
/** Tokens that describe a wrapper's layout (`has-sidebar`, `with-nav`) say nothing about the element. */
const LAYOUT_TOKEN = /^(?:has|with|no|is|show|hide|js|layout|page|body|template)-/;
/** Drupal's publication-state classes (`node-published`, `paragraph-published`) mark content, not a date. */
const STATE_TOKEN = /^(?:node|paragraph|block|media|entity|group)-(?:un)?published$/;
/** A token that also names the content (`content-with-sidebar`, `article-rail-wrapper`) is a wrapper. */
const CONTENT_WORD = /content|article|body|story|entry/;
/** Comment threads and customer reviews: user-written text next to the page's own. */
const COMMENTS =
  /^(?:comments?|comment-list|commentlist|comments-area|comment-section|disqus[a-z_-]*|respond|replies|reviews|review-list|reviews-list|customer-reviews|user-reviews|product-reviews|testimonials?|ratings-reviews)$/;
/** ...and the names of product-review widgets (`product-reviews-content`, `customer-review`). */
const REVIEWS = /^(?:[a-z]+-)?(?:customer|product|user)-reviews?(?:-(?:list|content|container|section|items?))?$/;
const CAPTION = /(?:^|[\s_-])(?:caption|captions|credit|credits|photo-credit|image-credit|wp-caption-text)(?:$|[\s_-])/;

/** A class-based section guess and the token behind it (contexts opened by one token are judged together). */
export interface PatternHit {
  kind: SectionKind;
  token: string;
}

/** Everything the class/id signature says. */
export interface ClassInfo {
  hit: PatternHit | null;
  comments: boolean;
  caption: boolean;
}

export const NO_CLASS: ClassInfo = { hit: null, comments: false, caption: false };

const MAX_CACHE = 20_000;
const tokenCache = new Map<string, SectionKind | null>();
const classCache = new Map<string, ClassInfo>();

function tokenSection(token: string): SectionKind | null {
  let hit = tokenCache.get(token);
  if (hit !== undefined) return hit;
  hit = null;
  if (!LAYOUT_TOKEN.test(token) && !STATE_TOKEN.test(token)) {
    const wrapper = CONTENT_WORD.test(token);
    for (const [kind, re] of PATTERNS) {
      if (re.test(token) && (!wrapper || kind === 'metadata')) {
        hit = kind;
        break;
      }
    }
  }
  if (tokenCache.size > MAX_CACHE) tokenCache.clear();
  tokenCache.set(token, hit);
  return hit;
}

function patternHit(tokens: string[]): PatternHit | null {
  let best: PatternHit | null = null;
  for (const token of tokens) {
    const kind = token ? tokenSection(token) : null;
    if (!kind) continue;
    // metadata is the most specific guess (a byline inside a header is still a byline)
    if (kind === 'metadata') return { kind, token };
    best ??= { kind, token };
  }
  return best;
}

/** What a lower-cased `class id` signature says (see module comment); cached per signature. */
export function classify(sig: string): ClassInfo {
  let info = classCache.get(sig);
  if (!info) {
    const tokens = sig.split(/\s+/);
    info = {
      hit: patternHit(tokens),
      comments: tokens.some((t) => COMMENTS.test(t) || REVIEWS.test(t)),
      caption: CAPTION.test(sig),
    };
    if (classCache.size > MAX_CACHE) classCache.clear();
    classCache.set(sig, info);
  }
  return info;
}

/** The class/id-based section guess for a signature, or null. */
export function sectionFromPattern(sig: string): SectionKind | null {
  return sig ? (classify(sig).hit?.kind ?? null) : null;
}
