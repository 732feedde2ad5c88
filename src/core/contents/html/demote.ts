/**
 * Corrects chrome guesses with the page's own text: a context whose element holds a large share of
 * the page's prose (Blogger's `widget Blog`, Elementor's `elementor-widget` on every block, an article
 * column named `l-sidebar-fixed`) is not chrome, unless an article elsewhere holds real text.
 */
import type { SectionKind } from '../page.js';
import { type SectionContext, effectiveSection } from './sections.js';

/** What the demotion needs to know of a block. */
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

interface ProseTally {
  total: number;
  /** Prose inside `<article>` or articleBody-like elements. */
  content: number;
  /** Prose under each chrome context, and the part of it that is inside content elements. */
  prose: Map<SectionContext, number>;
  contentUnder: Map<SectionContext, number>;
  /** Prose under each class token (all the contexts one token opened, counted once). */
  byToken: Map<string, number>;
  /** Prose inside `<main>`/`<article>` (or their roles), and the part of it under each chrome context. */
  main: number;
  mainUnder: Map<SectionContext, number>;
}

function tallyProse(blocks: ProseBlock[]): ProseTally {
  const t: ProseTally = {
    total: 0,
    content: 0,
    prose: new Map(),
    contentUnder: new Map(),
    byToken: new Map(),
    main: 0,
    mainUnder: new Map(),
  };
  const add = <K>(m: Map<K, number>, k: K, p: number) => m.set(k, (m.get(k) ?? 0) + p);
  for (const b of blocks) {
    const p = proseChars(b);
    if (p === 0) continue;
    t.total += p;
    if (b.ctx.inArticle) t.content += p;
    if (b.ctx.inContent) t.main += p;
    const tokens = new Set<string>();
    for (let c: SectionContext | null = b.ctx; c; c = c.parent) {
      if (c.own && c.own !== 'content') {
        add(t.prose, c, p);
        if (b.ctx.inArticle) add(t.contentUnder, c, p);
        if (b.ctx.inContent) add(t.mainUnder, c, p);
      }
      if (c.token) tokens.add(c.token);
    }
    for (const token of tokens) add(t.byToken, token, p);
  }
  return t;
}

/** The share of the page's prose above which a context stops being chrome. */
function limit(ctx: SectionContext): number {
  if (ctx.strong) return 0.6;
  // sidebars, widgets and metadata are often mislabelled layout; footers, menus and banners rarely
  return ctx.own === 'sidebar' || ctx.own === 'metadata' ? 0.3 : 0.5;
}

/** Each block's final section (after demotions) and whether a tag or role decided it. */
export function resolveSections(blocks: ProseBlock[]): { section: SectionKind; strong: boolean }[] {
  const t = tallyProse(blocks);
  for (const [ctx, p] of t.prose) {
    const mine = Math.max(p, ctx.token ? (t.byToken.get(ctx.token) ?? 0) : p);
    const contentElsewhere = t.content - (t.contentUnder.get(ctx) ?? 0);
    if (contentElsewhere >= 0.3 * t.total) continue;
    // a footer or menu by tag or role next to the page's <main>: chrome, however much fine print it holds
    if (ctx.strong && !ctx.inContent && t.main - (t.mainUnder.get(ctx) ?? 0) > 0) continue;
    if (mine / t.total > limit(ctx) && mine > (ctx.strong ? 1500 : 300)) ctx.demoted = true;
  }
  const cache = new Map<SectionContext, { section: SectionKind; strong: boolean }>();
  return blocks.map((b) => {
    let hit = cache.get(b.ctx);
    if (!hit) cache.set(b.ctx, (hit = effectiveSection(b.ctx)));
    return hit;
  });
}
