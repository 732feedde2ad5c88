/**
 * Ruby and shell cut by declarations and indentation: a Ruby `def`, `class` or `module`, or a shell
 * function, ends on the first `end` (`}`) line at its own indentation, which is how both are written;
 * `#` comments right above are its doc. Heredocs and `=begin` blocks are skipped.
 */
import {
  cleanComment,
  fileScope,
  fillGaps,
  indentOf,
  scopeGaps,
  isBlank,
  MAX_NESTING,
  signatureOf,
  type Unit,
  type Scope,
} from './units.js';

interface ScriptDecl {
  kind: 'function' | 'class' | 'module';
  /** Null for `class << self`, whose methods belong to the enclosing class. */
  name: string | null;
  container: boolean;
}

interface ScriptSpec {
  match(code: string): ScriptDecl | null;
  /** A line that ends a block opened at its indentation. */
  closer: RegExp;
  /** The declaration line opens and closes its block (`def x; end`, `f() { …; }`). */
  oneLine: RegExp;
  /** Opens a heredoc; group 1 is its terminator. */
  heredoc: RegExp;
}

interface Ctx {
  lines: string[];
  spec: ScriptSpec;
  /** Lines inside heredocs and `=begin`…`=end`: not code. */
  skip: Uint8Array;
}

// Longer declaration lines are not tested as one-liners (the pattern backtracks on long lines).
const MAX_ONE_LINER = 1_000;

const RUBY: ScriptSpec = {
  match(code) {
    let m = /^def\s+(?:(?:self|[A-Z]\w*)\.)?([^\s(;]+)/.exec(code);
    if (m) return { kind: 'function', name: m[1]!.replace(/=$/, '') || m[1]!, container: false };
    if (/^class\s*<<\s*self\b/.test(code)) return { kind: 'class', name: null, container: true };
    if ((m = /^(class|module)\s+([A-Z][\w:]*)/.exec(code))) {
      return { kind: m[1] === 'class' ? 'class' : 'module', name: m[2]!.replace(/::/g, '.'), container: true };
    }
    return null;
  },
  closer: /^end\b/,
  oneLine: /(?:^|[;\s])end\s*(?:#.*)?$|^def\s+[^\s(;]+(?:\([^)]*\))?\s*=\s*\S/,
  heredoc: /<<[~-]?(['"`]?)([A-Z_][A-Z0-9_]*)\1/,
};

const SHELL: ScriptSpec = {
  match(code) {
    const m = /^(?:function\s+([\w.:-]+)\s*(?:\(\s*\))?|([\w.:-]+)\s*\(\s*\))\s*(?:[{(]|$)/.exec(code);
    return m ? { kind: 'function', name: (m[1] ?? m[2])!, container: false } : null;
  },
  closer: /^[})]/,
  oneLine: /[{(].*[})]\s*;?\s*(?:#.*)?$/,
  heredoc: /<<-?\s*(['"]?)([A-Za-z_]\w*)\1/,
};

/** The units of a Ruby file. */
export function chunkRuby(lines: string[]): Unit[] {
  return chunkScript(lines, RUBY);
}

/** The units of a shell script. */
export function chunkShell(lines: string[]): Unit[] {
  return chunkScript(lines, SHELL);
}

function chunkScript(lines: string[], spec: ScriptSpec): Unit[] {
  const ctx: Ctx = { lines, spec, skip: skipped(lines, spec) };
  return collect(ctx, fileScope(lines, firstIndent(ctx, 0, lines.length - 1)));
}

function skipped(lines: string[], spec: ScriptSpec): Uint8Array {
  const skip = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const terminator = line.startsWith('=begin') ? '=end' : spec.heredoc.exec(line.replace(/#.*$/, ''))?.[2];
    if (!terminator) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== terminator) skip[j++] = 1;
    if (j < lines.length) skip[j] = 1;
    i = j;
  }
  return skip;
}

function isCode(ctx: Ctx, i: number): boolean {
  const line = ctx.lines[i]!;
  return !ctx.skip[i] && !isBlank(line) && !line.trimStart().startsWith('#');
}

function firstIndent(ctx: Ctx, from: number, to: number): number {
  for (let i = from; i <= to; i++) if (isCode(ctx, i)) return indentOf(ctx.lines[i]!);
  return 0;
}

function collect(ctx: Ctx, scope: Scope): Unit[] {
  const units: Unit[] = [];
  let floor = scope.from;
  for (let i = scope.from; i <= scope.to; i++) {
    if (!isCode(ctx, i) || indentOf(ctx.lines[i]!) !== scope.indent) continue;
    const code = ctx.lines[i]!.trim();
    const decl = ctx.spec.match(code);
    if (!decl) continue;
    const end = code.length <= MAX_ONE_LINER && ctx.spec.oneLine.test(code) ? i : blockEnd(ctx, i, scope);
    units.push(...place(ctx, scope, decl, i, end, floor));
    floor = end + 1;
    i = end;
  }
  return fillGaps(scope.from, scope.to, units, scopeGaps(scope));
}

/** The closing line at the declaration's indentation; else the block's last line before a dedent. */
function blockEnd(ctx: Ctx, i: number, scope: Scope): number {
  let last = i;
  for (let j = i + 1; j <= scope.to; j++) {
    if (!isCode(ctx, j)) continue;
    const indent = indentOf(ctx.lines[j]!);
    if (indent === scope.indent && ctx.spec.closer.test(ctx.lines[j]!.trim())) return j;
    if (indent <= scope.indent) return last;
    last = j;
  }
  return last;
}

function place(ctx: Ctx, scope: Scope, decl: ScriptDecl, i: number, end: number, floor: number): Unit[] {
  const prefix = prefixOf(ctx, i, scope.indent, floor);
  const qualified = decl.name === null ? scope.path : [...scope.path, decl.name];
  const unit: Unit = {
    start: prefix.start,
    end,
    kind: decl.kind === 'function' && scope.inClass ? 'method' : decl.kind,
    symbol: qualified.join('.') || null,
    signature: signatureOf(ctx.lines, i, i),
    doc: prefix.doc,
  };
  if (!decl.container || end <= i + 1 || scope.level >= MAX_NESTING) return [unit];
  const childIndent = firstIndent(ctx, i + 1, end - 1);
  // A module holding only classes is a namespace: its classes are not qualified by it.
  const namespace = decl.kind === 'module' && !hasDef(ctx, i + 1, end - 1, childIndent);
  const path = namespace ? scope.path : qualified;
  const inner = collect(ctx, {
    level: scope.level + 1,
    from: i + 1,
    to: end,
    indent: childIndent,
    path,
    inClass: !namespace || scope.inClass,
  });
  const first = inner.findIndex((u) => !u.gap);
  if (first < 0) return [unit];
  const header: Unit = { ...unit, end: inner[first]!.start - 1 };
  const bare = (namespace || decl.name === null) && header.doc === null && header.end <= i;
  return [bare ? { ...header, drop: true } : header, ...inner.slice(first)];
}

function hasDef(ctx: Ctx, from: number, to: number, indent: number): boolean {
  for (let i = from; i <= to; i++) {
    if (isCode(ctx, i) && indentOf(ctx.lines[i]!) === indent && /^def\s/.test(ctx.lines[i]!.trim())) return true;
  }
  return false;
}

function prefixOf(ctx: Ctx, i: number, indent: number, floor: number): { start: number; doc: string | null } {
  let start = i;
  while (start - 1 >= floor) {
    const line = ctx.lines[start - 1]!;
    if (isBlank(line) || indentOf(line) !== indent || !line.trimStart().startsWith('#') || line.startsWith('#!')) break;
    start--;
  }
  return { start, doc: start < i ? cleanComment(ctx.lines.slice(start, i)) : null };
}
