/**
 * Where an element sits on the page: the spec's section enum, from semantic tags, ARIA roles and
 * class/id patterns, inherited by descendants. Tags and roles are strong evidence; class/id guesses
 * are weaker (demote.ts overrules them when they would swallow the page's text).
 */
import type { Element } from 'domhandler';
import type { SectionKind } from '../page.js';
import { furnitureForms } from './clean.js';
import { signature } from './dom.js';
import { NO_CLASS, type PatternHit, classify } from './patterns.js';

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
  /** Inside an `<article>` or an articleBody-like itemprop (narrower than `inContent`). */
  inArticle: boolean;
  /** Inside a comment thread (class/id `comment`, `disqus`, ...). */
  inComments: boolean;
  /** Inside an image caption or credit (`<figcaption>`, class `caption`, `credit`). */
  inCaption: boolean;
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
  inArticle: false,
  inComments: false,
  inCaption: false,
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

type Flags = Pick<SectionContext, 'inComments' | 'inCaption'>;

function child(
  parent: SectionContext,
  own: SectionContext['own'],
  strong: boolean,
  flags: Flags,
  token?: string,
  isArticleLike = false,
) {
  const ctx: SectionContext = {
    own,
    strong,
    parent,
    section: 'body',
    inContent: parent.inContent || own === 'content',
    inArticle: parent.inArticle || (own === 'content' && isArticleLike),
    ...flags,
    demoted: false,
    token: token ?? null,
  };
  ctx.section = effectiveSection(ctx).section;
  return ctx;
}

const CONTENT_TAGS = new Set(['main', 'article']);
const CONTENT_ROLES = new Set(['main', 'article']);
/** schema.org microdata naming the text of an article, post, review or product. */
const CONTENT_ITEMPROPS = /^(?:articleBody|reviewBody|text|description|mainEntity|acceptedAnswer|suggestedAnswer)$/;

const FORM_HIT: PatternHit = { kind: 'banner', token: '<form>' };

function strongSection(el: Element, ctx: SectionContext): SectionKind | 'content' | null {
  const role = el.attribs.role;
  const name = el.name;
  if (name === 'nav' || role === 'navigation' || role === 'menubar' || role === 'menu') return 'navigation';
  if (role === 'banner') return 'header';
  if (role === 'contentinfo') return ctx.inContent ? 'metadata' : 'footer';
  if (role === 'complementary') return 'sidebar';
  if (role === 'dialog' || role === 'alertdialog' || role === 'alert') return 'banner';
  if (CONTENT_TAGS.has(name) || (role !== undefined && CONTENT_ROLES.has(role))) return 'content';
  if (el.attribs.itemprop && CONTENT_ITEMPROPS.test(el.attribs.itemprop)) return 'content';
  if (name === 'header') return ctx.inContent || ctx.section !== 'body' ? null : 'header';
  if (name === 'footer') return ctx.inContent ? 'metadata' : 'footer';
  if (name === 'aside') return ctx.inContent ? null : 'sidebar';
  return null;
}

/** The context for `el`'s subtree, given its parent's context (returns `ctx` itself when unchanged). */
export function enterElement(el: Element, ctx: SectionContext): SectionContext {
  const strong = strongSection(el, ctx);
  const sig = el.name === 'body' || el.name === 'html' ? '' : signature(el);
  const cls = sig ? classify(sig) : NO_CLASS;
  const flags: Flags = {
    inComments: ctx.inComments || cls.comments,
    inCaption: ctx.inCaption || el.name === 'figcaption' || cls.caption,
  };
  if (strong === 'content')
    return child(ctx, strong, true, flags, undefined, el.name !== 'main' && el.attribs.role !== 'main');
  if (strong) return child(ctx, strong, true, flags);
  // a search, log-in, sign-up or reply form (the clean pass marks them by their inputs) is page
  // furniture; other forms (ASP.NET's page-wide one, add-to-cart forms round product cards) are not
  const weak = cls.hit ?? (el.name === 'form' && furnitureForms.has(el) ? FORM_HIT : null);
  if (weak) return child(ctx, weak.kind, false, flags, weak.token);
  if (flags.inComments !== ctx.inComments || flags.inCaption !== ctx.inCaption) return child(ctx, null, false, flags);
  return ctx;
}
