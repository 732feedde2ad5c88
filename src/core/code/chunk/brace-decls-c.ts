/**
 * Declarations of the C family (Java, Kotlin, C, C++, C#, PHP, Swift, Scala), read from a line's masked
 * code: annotations and modifiers are stripped, then a type keyword (`class`, `struct`, `trait`…), a
 * function keyword (`fun`, `func`, `def`, `function`) or a C-style `Type name(` is looked for.
 */
import type { Decl, DeclMatcher, Scope } from './brace-decls.js';

const MODIFIERS = new Set(
  `public private protected internal static final abstract sealed non-sealed open data inner partial readonly
  export default inline value annotation companion fileprivate override case implicit lazy indirect unsafe
  ref virtual extern typedef const constexpr volatile strictfp new file mutating nonmutating dynamic
  required convenience async suspend tailrec operator infix external actual expect lateinit transient
  synchronized native package explicit friend noexcept`.split(/\s+/),
);
const CONTROL = new Set(['if', 'for', 'foreach', 'while', 'switch', 'catch', 'return', 'new', 'throw', 'else', 'do', 'case', 'using', 'lock', 'sizeof', 'typeof', 'await', 'yield', 'delete', 'goto', 'synchronized', 'assert', 'fixed', 'checked', 'unchecked', 'when', 'match', 'guard', 'defer']); // prettier-ignore

// Prefixes that belong to the declaration: annotations, C# attributes, C++ templates and attributes.
const PREFIX =
  /^(?:@[\w.]+(?:\s*\((?:[^()]|\([^()]*\))*\))?\s*|\[\[?[^\]]*\]\]?\s*|template\s*<(?:[^<>]|<[^<>]*>)*>\s*)+/;
const TYPE =
  /^(class|interface|enum|record|struct|trait|object|protocol|extension|actor|namespace|union|mixin|@interface)\b\s*([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)?/;
const KOTLIN_FUN =
  /^(?:fun\s+(?:<[^>]*>\s*)?(?:([\w.]+(?:<[^>]*>)?\??)\.)?([A-Za-z_]\w*|"[^"]*")|(constructor|init)\b)\s*[({]?/;
const SWIFT_FUNC = /^(?:func\s+([^\s(<]+)|(init|deinit|subscript)\b)/;
const SCALA_DEF = /^def\s+([^\s(:[=]+)/;
const PHP_FUNCTION = /^function\s+&?\s*([A-Za-z_]\w*)/;
const C_FUNCTION =
  /^(?:([\w$.:<>,[\]?*&\s]+?)[\s*&>\]]+)?((?:[A-Za-z_$][\w$]*(?:<[^<>()]*>)?::)*~?[A-Za-z_$][\w$]*|operator\s*[^\s(]+)\s*\(/;
const CSHARP_PROPERTY = /^[\w<>[\],.?]+\s+([A-Za-z_]\w*)\s*(?:\{.*)?$/;
const SWIFT_PROPERTY = /^(?:var|let)\s+(\w+)\s*:[^={]*\{/;

/** The line without its annotations, attributes and modifiers. */
export function stripModifiers(head: string): string {
  let rest = head.replace(PREFIX, '');
  for (let m = /^([\w-]+)\s+/.exec(rest); m && MODIFIERS.has(m[1]!); m = /^([\w-]+)\s+/.exec(rest)) {
    rest = rest.slice(m[0].length);
  }
  // `enum class Color` (Kotlin, C++) and `fun interface` are the enum and the interface.
  return rest.replace(/^enum\s+(?:class|struct)\b/, 'enum').replace(/^fun\s+interface\b/, 'interface');
}

interface Family {
  types: Set<string>;
  /** C and C++: a struct keyword may start a function or a variable declaration. */
  parenMeansFunction?: boolean;
  functions: (head: string, scope: Scope, owner: string | null) => Decl | null;
  bodiless?: RegExp;
}

function typeDecl(head: string, family: Family): Decl | null {
  const m = TYPE.exec(head);
  if (!m || !family.types.has(m[1]!)) return null;
  // C and C++: `struct node *make(int v) {` returns a struct; `struct point origin = {…}` is a value.
  if (
    family.parenMeansFunction &&
    (/^[^{]*\(/.test(head) || /^\s*[*&]*\s*(?!final\b)[A-Za-z_]/.test(head.slice(m[0].length)))
  )
    return null;
  if (m[1] === 'namespace') return { kind: 'module', name: m[2] ?? null, container: 'transparent', needsBody: true };
  const name = m[2] && m[2] !== '{' ? m[2].replace(/::/g, '.') : null;
  const companion = m[1] === 'object' && name === null;
  return {
    kind: 'class',
    name: companion ? 'Companion' : name,
    container: companion ? 'transparent' : 'class',
    needsBody: true,
    quietHeader: m[1] === 'extension',
    nameAfterBody: name === null && !companion,
  };
}

function keywordFunction(name: string | undefined | null, family: Family): Decl | null {
  if (!name) return null;
  return { kind: 'function', name: name.replace(/^"(.*)"$/, '$1'), needsBody: true, bodiless: family.bodiless };
}

function cStyleFunction(head: string, scope: Scope, owner: string | null, cTypeLines = false): Decl | null {
  const m = C_FUNCTION.exec(head);
  if (!m) return null;
  const [, type, name] = m as unknown as [string, string | undefined, string];
  const firstWord = /^\w+/.exec(type ?? name)?.[0] ?? '';
  if (CONTROL.has(firstWord) || CONTROL.has(name)) return null;
  const constructor = name === owner || name.startsWith('~') || name.includes('::');
  // Without a type: a constructor, or C's `name(args)` under a return type line of its own.
  if (!type && !constructor && scope !== 'class' && !cTypeLines) return null;
  return {
    kind: 'function',
    name: name.replace(/<[^<>()]*>/g, '').replace(/::/g, '.'),
    needsBody: true,
    bodiless: /=>/,
  };
}

// `static PyTypeObject Xxo_Type = {`, `const char *names[] = {`: a named value over several lines.
const C_VALUE = /^[\w$<>:,*&\s]+?[\s*&](\w+)\s*(?:\[[^\]]*\]\s*)*=(?!=)/;

function cValue(head: string, scope: Scope): Decl | null {
  const m = scope === 'top' ? C_VALUE.exec(head) : null;
  return m && !CONTROL.has(/^\w+/.exec(head)?.[0] ?? '')
    ? { kind: 'block', name: m[1]!, minLines: 3, expression: true }
    : null;
}

function csharpProperty(head: string, scope: Scope): Decl | null {
  const m = scope === 'class' ? CSHARP_PROPERTY.exec(head) : null;
  return m && !CONTROL.has(m[1]!) ? { kind: 'method', name: m[1]!, needsBody: true, minLines: 3 } : null;
}

const words = (list: string): Set<string> => new Set(list.split(' '));
const ASSIGNED = /[^=!<>]=(?![=>])/;

const FAMILIES: Record<string, Family> = {
  java: { types: words('class interface enum record @interface'), functions: cStyleFunction },
  csharp: {
    types: words('class interface enum record struct namespace'),
    functions: (head, scope, owner) => cStyleFunction(head, scope, owner) ?? csharpProperty(head, scope),
  },
  c: { types: words('struct enum union'), parenMeansFunction: true, functions: (h, s, o) => cStyleFunction(h, s, o, true) ?? cValue(h, s) }, // prettier-ignore
  cpp: { types: words('class struct enum union namespace'), parenMeansFunction: true, functions: (h, s, o) => cStyleFunction(h, s, o, true) ?? cValue(h, s) }, // prettier-ignore
  php: {
    types: words('class interface trait enum namespace'),
    functions: (head) => keywordFunction(PHP_FUNCTION.exec(head)?.[1], FAMILIES.php!),
  },
  kotlin: {
    types: words('class interface object enum'),
    functions(head) {
      const m = KOTLIN_FUN.exec(head);
      if (!m) return null;
      return keywordFunction(m[1] ? `${m[1].replace(/<.*>|\?$/g, '')}.${m[2]}` : (m[2] ?? m[3]), FAMILIES.kotlin!);
    },
    bodiless: ASSIGNED,
  },
  swift: {
    types: words('class struct enum protocol extension actor'),
    functions(head, scope) {
      const m = SWIFT_FUNC.exec(head);
      if (m) return keywordFunction(m[1] ?? m[2], FAMILIES.swift!);
      const p = scope === 'class' ? SWIFT_PROPERTY.exec(head) : null;
      return p ? { kind: 'method', name: p[1]!, needsBody: true, minLines: 2 } : null;
    },
  },
  scala: {
    types: words('class trait object enum'),
    functions: (head) => keywordFunction(SCALA_DEF.exec(head)?.[1], FAMILIES.scala!),
    bodiless: ASSIGNED,
  },
};

// C and C++ also put the return type on a line of its own (`static PyObject *` above `name(args)`).
const C_TYPE_LINE = '[\\w\\s*&:<>,]*[\\w*&>]$';
const ATTRIBUTES: Record<string, RegExp> = {
  csharp: /^\[/,
  c: new RegExp(`^${C_TYPE_LINE}`),
  cpp: new RegExp(`^(?:template\\s*<|\\[\\[|${C_TYPE_LINE})`),
};

/** The matcher of a C-family language id, or null for other languages. */
export function cFamilyMatcher(language: string): DeclMatcher | null {
  const family = FAMILIES[language];
  if (!family) return null;
  return {
    match(line, scope, owner) {
      if (scope === 'object') return null;
      const head = stripModifiers(line);
      return typeDecl(head, family) ?? family.functions(head, scope, owner);
    },
    attribute: ATTRIBUTES[language] ?? /^@|^#\[/,
  };
}
