/**
 * Where an element sits on the page: the spec's section enum, from semantic tags, ARIA roles and
 * class/id patterns, inherited by descendants. Tags and roles are strong evidence; class/id patterns
 * are weaker (a `content-with-sidebar` wrapper must not turn the article into a sidebar), so the
 * extractor weighs them differently.
 */
import type { Element } from 'domhandler';
import type { SectionKind } from '../page.js';
import { signature } from './dom.js';

/** The section context a walker carries down the tree: one per element that changes it. */
export interface SectionContext {
  /** What the element that opened this context says: a section, `content` (main/article) or nothing. */
  own: SectionKind | 'content' | null;
  /** `own` came from a tag or ARIA role rather than a class/id pattern. */
  strong: boolean;
  parent: SectionContext | null;
  /** The section as the walk sees it (before `resolveSections` corrects class-based guesses). */
  section: SectionKind;
  /** Inside `<main>`, `<article>` or an element with a main/article role. */
  inContent: boolean;
  /** Inside a comment thread (class/id `comment`, `disqus`, ...). */
  inComments: boolean;
  /** Set when the element holds so much of the page's prose that its class name cannot mean chrome. */
  demoted: boolean;
  /** The class/id token behind a class-based `own`. */
  token: string | null;
}

export const ROOT_SECTION: SectionContext = {
  own: null,
  strong: false,
  parent: null,
  section: 'body',
  inContent: false,
  inComments: false,
  demoted: false,
  token: null,
};

/**
 * The section of a context: the nearest tag/role section above wins over class guesses (a `menu`
 * class inside `<footer>` is footer); `<main>`/`<article>` resets class guesses made outside it.
 */
export function effectiveSection(ctx: SectionContext): { section: SectionKind; strong: boolean } {
  let weak: SectionKind | null = null;
  let sawContent = false;
  for (let c: SectionContext | null = ctx; c; c = c.parent) {
    if (c.demoted || !c.own) continue;
    if (c.own === 'content') sawContent = true;
    else if (c.strong) return { section: c.own, strong: true };
    else if (!weak && !sawContent) weak = c.own;
  }
  return { section: weak ?? 'body', strong: false };
}

function child(
  parent: SectionContext,
  own: SectionContext['own'],
  strong: boolean,
  inComments: boolean,
  token: string | null = null,
) {
  const ctx: SectionContext = {
    own,
    strong,
    parent,
    section: 'body',
    inContent: parent.inContent || own === 'content',
    inComments,
    demoted: false,
    token,
  };
  ctx.section = effectiveSection(ctx).section;
  return ctx;
}

const CONTENT_TAGS = new Set(['main', 'article']);
const CONTENT_ROLES = new Set(['main', 'article']);

// Class/id patterns, matched per class/id token on word boundaries (`-`, `_`). Tokens that describe
// a wrapper's layout (`has-sidebar`, `with-nav`) say nothing about the element itself and are skipped.
const B = '(?:^|[_-])';
const E = '(?=$|[_-])';
const words = (list: string) => new RegExp(`${B}(?:${list})${E}`);

const PATTERNS: [SectionKind, RegExp][] = [
  [
    'metadata',
    words(
      'breadcrumbs?|byline|by-line|author|authors|dateline|date|timestamp|posted-on|published|pubdate|post-meta|entry-meta|article-meta|meta|metadata|tags|tag-list|taglist|tagcloud|categories|cat-links|tags-links|entry-footer|post-footer|article-footer|user-info|userinfo|user-details|userdetails|user-card|usercard|user-meta|user-extras|userextras|postprofile|postauthor|post-author|avatar|signature|message-user|message-user-details|poster|post-info|postinfo|post-signature',
    ),
  ],
  [
    'banner',
    words(
      'cookies?|cookie[a-z]*|consent|gdpr|cmp|newsletter|subscribe|subscription|signup|promo|promotion|advert[a-z]*|ads?|adslot|adunit|sponsor[a-z]*|paywall|popup|modal|overlay|announcement|interstitial|share|sharing|social|sharedaddy|addthis',
    ),
  ],
  [
    'navigation',
    words('nav|navbar|navigation|menu|menubar|mainmenu|megamenu|pagination|pager|skip-link|skiplink|toc|subnav'),
  ],
  ['footer', words('footer|colophon|copyright|site-info')],
  [
    'sidebar',
    words(
      'sidebar|sidenav|widgets|widget-area|related|recommended|recommendations|rail|aside|more-stories|read-next|trending|most-popular',
    ),
  ],
  ['header', /^(?:header|site-header|global-header|main-header|top-header|masthead|topbar|top-bar|site-branding)$/],
];
const LAYOUT_TOKEN = /^(?:has|with|no|is|show|hide|js|layout|page|body|template)-/;
/** A token that also names the content (`content-with-sidebar`, `article-rail-wrapper`) is a wrapper. */
const CONTENT_WORD = /content|article|body|story|entry/;
const COMMENTS =
  /^(?:comments?|comment-list|commentlist|comments-area|comment-section|disqus[a-z_-]*|respond|replies)$/;

const tokenCache = new Map<string, SectionKind | null>();

function tokenSection(token: string): SectionKind | null {
  let hit = tokenCache.get(token);
  if (hit !== undefined) return hit;
  hit = null;
  if (!LAYOUT_TOKEN.test(token)) {
    const wrapper = CONTENT_WORD.test(token);
    for (const [kind, re] of PATTERNS) {
      if (re.test(token) && (!wrapper || kind === 'metadata')) {
        hit = kind;
        break;
      }
    }
  }
  if (tokenCache.size < 50_000) tokenCache.set(token, hit);
  return hit;
}

interface PatternHit {
  kind: SectionKind;
  /** The class/id token that matched: contexts opened by the same token are judged together. */
  token: string;
}

function patternHit(sig: string): PatternHit | null {
  if (!sig) return null;
  let best: PatternHit | null = null;
  for (const token of sig.split(/\s+/)) {
    const kind = token ? tokenSection(token) : null;
    if (!kind) continue;
    // metadata is the most specific guess (a byline inside a header is still a byline)
    if (kind === 'metadata') return { kind, token };
    best ??= { kind, token };
  }
  return best;
}

/** A class/id-based guess at the section, or null. Exported for the unit tests. */
export function sectionFromPattern(sig: string): SectionKind | null {
  return patternHit(sig)?.kind ?? null;
}

function isComments(sig: string): boolean {
  for (const token of sig.split(/\s+/)) if (COMMENTS.test(token)) return true;
  return false;
}

function strongSection(el: Element, ctx: SectionContext): SectionKind | 'content' | null {
  const role = el.attribs.role;
  const name = el.name;
  if (name === 'nav' || role === 'navigation' || role === 'menubar' || role === 'menu') return 'navigation';
  if (role === 'banner') return 'header';
  if (role === 'contentinfo') return ctx.inContent ? 'metadata' : 'footer';
  if (role === 'complementary') return 'sidebar';
  if (role === 'dialog' || role === 'alertdialog' || role === 'alert') return 'banner';
  if (CONTENT_TAGS.has(name) || (role !== undefined && CONTENT_ROLES.has(role))) return 'content';
  if (name === 'header') return ctx.inContent || ctx.section !== 'body' ? null : 'header';
  if (name === 'footer') return ctx.inContent ? 'metadata' : 'footer';
  if (name === 'aside') return ctx.inContent ? null : 'sidebar';
  return null;
}

/** The context for `el`'s subtree, given its parent's context (returns `ctx` itself when unchanged). */
export function enterElement(el: Element, ctx: SectionContext): SectionContext {
  const strong = strongSection(el, ctx);
  const sig = el.name === 'body' || el.name === 'html' ? '' : signature(el);
  const inComments = ctx.inComments || (sig !== '' && isComments(sig));
  if (strong) return child(ctx, strong, true, inComments);
  const weak = sig ? patternHit(sig) : null;
  if (weak) return child(ctx, weak.kind, false, inComments, weak.token);
  if (inComments !== ctx.inComments) return child(ctx, null, false, inComments);
  return ctx;
}

/** What `resolveSections` needs to know of a block. */
export interface ProseBlock {
  ctx: SectionContext;
  kind: string;
  textChars: number;
  linkChars: number;
}

/** Characters of running text in a block (link text and short snippets do not count). */
export function proseChars(b: ProseBlock): number {
  if (b.kind === 'heading' || b.textChars < 60) return 0;
  return Math.max(0, b.textChars - 2 * b.linkChars);
}

/**
 * Corrects class-based chrome guesses: a context whose element holds a large share of the page's
 * prose (Blogger's `widget Blog`, a `l-sidebar-fixed` article column) is not chrome. Returns each
 * block's final section and whether it came from a tag or role.
 */
export function resolveSections(blocks: ProseBlock[]): { section: SectionKind; strong: boolean }[] {
  const prose = new Map<SectionContext, number>();
  const byToken = new Map<string, number>();
  let total = 0;
  for (const b of blocks) {
    const p = proseChars(b);
    if (p === 0) continue;
    total += p;
    const tokens = new Set<string>();
    for (let c: SectionContext | null = b.ctx; c; c = c.parent) {
      if (c.own && c.own !== 'content') prose.set(c, (prose.get(c) ?? 0) + p);
      if (c.token) tokens.add(c.token);
    }
    for (const t of tokens) byToken.set(t, (byToken.get(t) ?? 0) + p);
  }
  for (const [ctx, p] of prose) {
    // a class token that wraps a third of the page's prose (Elementor's `elementor-widget` on every
    // block, an article column named `l-sidebar-fixed`) names a layout, not chrome
    const shared = ctx.token ? (byToken.get(ctx.token) ?? 0) : p;
    const share = Math.max(p, shared) / total;
    if (ctx.strong ? share > 0.6 && p > 1500 : share > 0.3 && Math.max(p, shared) > 300) ctx.demoted = true;
  }
  const cache = new Map<SectionContext, { section: SectionKind; strong: boolean }>();
  return blocks.map((b) => {
    let hit = cache.get(b.ctx);
    if (!hit) cache.set(b.ctx, (hit = effectiveSection(b.ctx)));
    return hit;
  });
}
