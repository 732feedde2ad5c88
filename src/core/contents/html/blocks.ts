/**
 * Walks the cleaned DOM into blocks in document order (headings, paragraphs, lists, tables, code,
 * quotes, figures, rules), each rendered as Markdown and plain text and tagged with its section
 * context. Runs of inline content directly inside containers become paragraphs (split at `<br><br>`).
 */
import type { ChildNode, Element, ParentNode } from 'domhandler';
import type { BlockKind, SectionKind } from '../page.js';
import { codeLanguage, codeText, fence } from './code.js';
import { BLOCK_TAGS, hasDescendant, isTag, isText } from './dom.js';
import { type InlineOptions, renderInline } from './inline.js';
import { isLayoutList, renderList } from './list.js';
import { resolveSections } from './demote.js';
import { type SectionContext, enterElement } from './sections.js';
import { isDataTable, renderTable } from './table.js';
import { imageSource } from './assets.js';
import type { UrlResolver } from './urls.js';

/** A block before the main-content verdict: where it came from and how much (link) text it holds. */
export interface RawBlock {
  kind: BlockKind;
  /** The element the block is (or, for an inline run, the element that contains the run). */
  el: Element;
  /** The inline nodes of a run; null when the block is `el` itself. */
  nodes: ChildNode[] | null;
  ctx: SectionContext;
  /** The final section (after `resolveSections`), and whether a tag or role decided it. */
  section: SectionKind;
  strong: boolean;
  md: string;
  text: string;
  textChars: number;
  linkChars: number;
  /** Inside a link that wraps block content (a card): all its text is link text. */
  inLink: boolean;
  level?: number;
  language?: string | null;
}

interface Walk {
  ctx: SectionContext;
  inLink: boolean;
}

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const LIST_TAGS = new Set(['ul', 'ol', 'menu', 'dl']);
const FIGURE_CONTAINER = new Set(['pre', 'table', 'blockquote', 'p', 'ul', 'ol', 'dl', 'h2', 'h3', 'h4']);
const PLAIN_SECTIONS = new Set(['navigation', 'header', 'footer']);

/** Walks the subtree of `root` into raw blocks with their final sections. */
/** A one-line run that says the same thing twice ('Talk to an ExpertTalk to an Expert', '$279.95 $279.95'). */
const DOUBLED = /^([^\n]{4,}?)\s*\1$/;

/**
 * Animated buttons and price widgets print their label twice (one copy slides in on hover, one is
 * for screen readers) where a browser shows it once: such a line keeps one copy.
 */
function collapseDouble(b: { text: string; md: string; textChars: number; linkChars: number }): void {
  const m = DOUBLED.exec(b.text);
  if (!m || b.text.length > 300) return;
  const half = m[1]!.trim();
  const md = DOUBLED.exec(b.md)?.[1]?.trim();
  b.text = half;
  b.md = md ?? half;
  b.textChars = half.length;
  b.linkChars = Math.min(b.linkChars, half.length);
}

export function collectBlocks(root: ParentNode, ctx: SectionContext, urls: UrlResolver): RawBlock[] {
  const blocks = new BlockWalker(urls).run(root, ctx);
  resolveSections(blocks).forEach((s, i) => {
    blocks[i]!.section = s.section;
    blocks[i]!.strong = s.strong;
  });
  return blocks;
}

class BlockWalker {
  private readonly blocks: RawBlock[] = [];
  private readonly blockish = new WeakMap<Element, boolean>();
  private readonly withLinks: InlineOptions;
  private readonly noLinks: InlineOptions;

  constructor(private readonly urls: UrlResolver) {
    this.withLinks = { urls, links: true };
    this.noLinks = { urls, links: false };
  }

  run(root: ParentNode, ctx: SectionContext): RawBlock[] {
    this.children(root, { ctx, inLink: false });
    return this.blocks;
  }

  /** True for an element that is, or contains, block-level content. */
  private isBlockish(el: Element): boolean {
    let hit = this.blockish.get(el);
    if (hit === undefined) {
      hit = BLOCK_TAGS.has(el.name) || el.children.some((c) => isTag(c) && this.isBlockish(c));
      this.blockish.set(el, hit);
    }
    return hit;
  }

  private opts(w: Walk): InlineOptions {
    return PLAIN_SECTIONS.has(w.ctx.section) ? this.noLinks : this.withLinks;
  }

  private push(b: Omit<RawBlock, 'inLink' | 'ctx' | 'section' | 'strong'>, w: Walk): void {
    if (!b.text && b.kind !== 'rule' && b.kind !== 'figure') return;
    if (b.kind === 'paragraph' || b.kind === 'heading') collapseDouble(b);
    const block = b as RawBlock;
    block.ctx = w.ctx;
    block.inLink = w.inLink;
    block.section = w.ctx.section;
    block.strong = false;
    this.blocks.push(block);
  }

  private children(parent: ParentNode, w: Walk): void {
    let run: ChildNode[] = [];
    let lastBr = false;
    for (const child of parent.children) {
      if (isText(child)) {
        run.push(child);
        if (child.data.trim()) lastBr = false;
      } else if (isTag(child)) {
        if (!this.isBlockish(child)) {
          if (child.name === 'br' && lastBr) {
            this.flush(parent, run, w);
            run = [];
          }
          lastBr = child.name === 'br';
          run.push(child);
        } else {
          this.flush(parent, run, w);
          run = [];
          lastBr = false;
          this.element(child, w);
        }
      }
    }
    this.flush(parent, run, w);
  }

  private flush(parent: ParentNode, run: ChildNode[], w: Walk): void {
    if (run.length === 0 || !isTag(parent)) return;
    const r = renderInline(run, this.opts(w));
    if (!r.text) return;
    const linkChars = w.inLink ? r.text.length : r.linkChars;
    this.push(
      { kind: 'paragraph', el: parent, nodes: run, md: r.md, text: r.text, textChars: r.text.length, linkChars },
      w,
    );
  }

  private element(el: Element, outer: Walk): void {
    const ctx = enterElement(el, outer.ctx);
    const w: Walk = ctx === outer.ctx && el.name !== 'a' ? outer : { ctx, inLink: outer.inLink || el.name === 'a' };
    const name = el.name;
    const level = HEADINGS[name];
    if (level) return this.heading(el, level, w);
    if (name === 'p') return this.paragraph(el, w);
    if (name === 'pre' || name === 'listing' || name === 'xmp') return this.code(el, w);
    if (LIST_TAGS.has(name) && !isLayoutList(el)) return this.list(el, w);
    if (name === 'table' && isDataTable(el) && this.table(el, w)) return;
    if (name === 'blockquote') return this.quote(el, w);
    if (name === 'figure' && !hasDescendant(el, (d) => FIGURE_CONTAINER.has(d.name))) return this.figure(el, w);
    if (name === 'hr')
      return this.push({ kind: 'rule', el, nodes: null, md: '---', text: '', textChars: 0, linkChars: 0 }, w);
    this.children(el, w);
  }

  private heading(el: Element, level: number, w: Walk): void {
    const r = renderInline(el.children, this.opts(w));
    const text = r.text.replace(/\s*\n\s*/g, ' ');
    const md = `${'#'.repeat(level)} ${r.md.replace(/\s*\n\s*/g, ' ')}`;
    const linkChars = w.inLink ? text.length : r.linkChars;
    this.push({ kind: 'heading', el, nodes: null, md, text, textChars: text.length, linkChars, level }, w);
  }

  private paragraph(el: Element, w: Walk): void {
    const r = renderInline(el.children, this.opts(w));
    const linkChars = w.inLink ? r.text.length : r.linkChars;
    this.push({ kind: 'paragraph', el, nodes: null, md: r.md, text: r.text, textChars: r.text.length, linkChars }, w);
  }

  private code(el: Element, w: Walk): void {
    const code = codeText(el);
    if (!code.trim()) return;
    const language = codeLanguage(el);
    const block = { kind: 'code' as const, el, nodes: null, md: fence(code, language), text: code };
    this.push({ ...block, textChars: code.length, linkChars: 0, language }, w);
  }

  private list(el: Element, w: Walk): void {
    const r = renderList(el, this.opts(w));
    const linkChars = w.inLink ? r.textChars : r.linkChars;
    this.push({ kind: 'list', el, nodes: null, md: r.md, text: r.text, textChars: r.textChars, linkChars }, w);
  }

  private table(el: Element, w: Walk): boolean {
    const r = renderTable(el, this.opts(w));
    if (!r) return false;
    const linkChars = w.inLink ? r.textChars : r.linkChars;
    this.push({ kind: 'table', el, nodes: null, md: r.md, text: r.text, textChars: r.textChars, linkChars }, w);
    return true;
  }

  private quote(el: Element, w: Walk): void {
    const inner = new BlockWalker(this.urls).run(el, w.ctx);
    if (inner.length === 0) return;
    const md = inner
      .map((b) => b.md)
      .join('\n\n')
      .split('\n')
      .map((line) => (line ? `> ${line}` : '>'))
      .join('\n');
    const text = inner.map((b) => b.text).join('\n');
    const textChars = inner.reduce((n, b) => n + b.textChars, 0);
    const linkChars = inner.reduce((n, b) => n + b.linkChars, 0);
    this.push({ kind: 'quote', el, nodes: null, md, text, textChars, linkChars }, w);
  }

  private figure(el: Element, w: Walk): void {
    let img: Element | null = null;
    let caption: Element | null = null;
    const find = (node: ParentNode) => {
      for (const c of node.children) {
        if (!isTag(c)) continue;
        if (c.name === 'img' && !img) img = c;
        else if (c.name === 'figcaption' && !caption) caption = c;
        else find(c);
      }
    };
    find(el);
    const cap = caption ? renderInline((caption as Element).children, this.opts(w)) : null;
    const capText = cap ? cap.text.replace(/\s*\n\s*/g, ' ') : '';
    const image = img ? imageSource(img, this.urls) : null;
    const alt = img ? ((img as Element).attribs.alt ?? '').trim() : '';
    const lines = [image ? `![${alt.replace(/[[\]]/g, '')}](${image})` : '', cap ? cap.md : ''].filter(Boolean);
    if (lines.length === 0) return;
    const linkChars = cap ? (w.inLink ? capText.length : cap.linkChars) : 0;
    this.push(
      { kind: 'figure', el, nodes: null, md: lines.join('\n'), text: capText, textChars: capText.length, linkChars },
      w,
    );
  }
}
