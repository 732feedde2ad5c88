/**
 * What a line of a brace language declares, read from its masked code (brace-scan.ts): JavaScript and
 * TypeScript, Go and Rust here, the C family in brace-decls-c.ts. Regular expressions over one line
 * (the first 400 characters), by design: no grammar is available offline for every language.
 */

/** Where a line sits: at the top level (or in a namespace), in a class-like body, in an object literal. */
export type Scope = 'top' | 'class' | 'object';

/** A recognised declaration. */
export interface Decl {
  kind: 'function' | 'method' | 'class' | 'block' | 'module';
  /** The name, qualified when the line itself says so (Go receivers, C++ `A::b`, prototypes). */
  name: string | null;
  /** Its body holds members: `class` and `object` qualify them, `namespace` too, `transparent` not. */
  container?: 'class' | 'object' | 'namespace' | 'transparent';
  /** Without a `{…}` body (a prototype, an overload, an abstract method) it is no chunk… */
  needsBody?: boolean;
  /** …unless its text matches this (an expression body: `=> x`, `= x`). */
  bodiless?: RegExp;
  /** A const that is a function only if `=>` or `function` comes before its body. */
  arrow?: boolean;
  /** A statement (`const x = …`, `type T = …`): it ends at its `;` or line end, braces inside it included. */
  expression?: boolean;
  /** Shorter than this and it stays in the surrounding chunk (one-line types and constants). */
  minLines?: number;
  /** Its header alone is a chunk only with a doc comment or more than one line (impl, extension). */
  quietHeader?: boolean;
  /** A C `typedef struct {…} Name;`: the name follows the body. */
  nameAfterBody?: boolean;
}

/** A language's declaration matcher and the prefix lines (decorators, attributes) its items carry. */
export interface DeclMatcher {
  match(head: string, scope: Scope, owner: string | null): Decl | null;
  /** A line that belongs to the declaration below it (`@decorator`, `#[attr]`, `[Attr]`). */
  attribute: RegExp | null;
}

const NAME = '[A-Za-z_$][\\w$]*';
const EXPORT = '(?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?';
const JS_CLASS = new RegExp(`^${EXPORT}(?:abstract\\s+)?class\\b\\s*(${NAME})?`);
const JS_FUNCTION = new RegExp(`^${EXPORT}(?:async\\s+)?function\\b\\s*\\*?\\s*(${NAME})?`);
const JS_TYPE = new RegExp(`^${EXPORT}(interface|type|(?:const\\s+)?enum)\\s+(${NAME})`);
const JS_NAMESPACE = new RegExp(`^${EXPORT}(?:namespace|module)\\s+(${NAME}(?:\\.${NAME})*|"[^"]*")`);
const JS_CONST = new RegExp(`^${EXPORT}(?:const|let|var)\\s+(${NAME})\\s*(?::.*?)?=(?![>=])\\s*(.*)$`);
const JS_FUNCTION_VALUE = new RegExp(`^(?:async\\s+)?(?:function\\b|\\(|<|${NAME}\\s*=>)`);
// `exports.parse = …`, `Pool.prototype.acquire = function (…) {`, `modes.ecb = function (…) {`
const JS_MEMBER = new RegExp(`^((?:${NAME}\\.)+)(${NAME})\\s*=(?![>=])\\s*(.*)$`);
const JS_MODIFIERS =
  '(?:(?:public|private|protected|static|readonly|abstract|override|async|declare|accessor|get|set)\\s+)*';
const JS_METHOD = new RegExp(`^${JS_MODIFIERS}\\*?\\s*(#?${NAME}|\\[[^\\]]+\\])\\s*[?!]?\\s*(?:<[^(]*>)?\\s*\\(`);
const JS_FIELD = new RegExp(`^${JS_MODIFIERS}(#?${NAME})\\s*[?!]?\\s*(?::.*?)?=(?![>=])\\s*(.*)$`);
const JS_KEY = `(${NAME}|"[^"]*"|\\[[^\\]]+\\])`;
const JS_OBJECT_METHOD = new RegExp(`^(?:async\\s+)?(?:get\\s+|set\\s+)?\\*?\\s*${JS_KEY}\\s*\\(`);
const JS_OBJECT_PROPERTY = new RegExp(`^${JS_KEY}\\s*:\\s*(.*)$`);
const NOT_MEMBERS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'with']);
// A top-level call over several lines (`describe('pool', () => {`, `app.get('/x', …)`) is a block; a
// test's is named by its title.
const JS_CALL = new RegExp(
  `^(?:export\\s+default\\s+|await\\s+)?(${NAME}(?:\\.${NAME})*)\\s*(?:<[^(]*>)?\\(\\s*(?:"([^"]*)")?`,
);
const TEST_CALLS = /^(?:describe|it|test|suite|bench|context|specify)(?:\.(?:only|skip|concurrent|todo|fails))?$/;

const unquote = (name: string): string => name.replace(/^"(.*)"$/, '$1').trim();

function jsValue(name: string, value: string, scope: Scope): Decl | null {
  if (value === '' || JS_FUNCTION_VALUE.test(value)) return { kind: 'function', name, arrow: true, expression: true };
  if (value.startsWith('{'))
    return { kind: 'block', name, container: 'object', minLines: 3, quietHeader: true, expression: true };
  return scope === 'top' ? { kind: 'block', name, minLines: 3, expression: true } : null;
}

function jsMemberFunction(path: string, name: string): Decl {
  const owner = path.replace(/^(?:module\.)?exports\./, '').replace(/\.prototype\.$/, '.');
  const kind = path.endsWith('.prototype.') ? 'method' : 'function';
  return { kind, name: `${owner}${name}`, arrow: true, expression: true };
}

function jsTop(head: string): Decl | null {
  let m = JS_CLASS.exec(head);
  if (m) return { kind: 'class', name: m[1] ?? 'default', container: 'class', needsBody: true };
  if ((m = JS_FUNCTION.exec(head))) return { kind: 'function', name: m[1] ?? 'default', needsBody: true };
  if ((m = JS_TYPE.exec(head))) {
    return m[1] === 'type'
      ? { kind: 'class', name: m[2]!, minLines: 3, expression: true }
      : { kind: 'class', name: m[2]!, container: m[1] === 'interface' ? 'class' : undefined };
  }
  if ((m = JS_NAMESPACE.exec(head))) {
    const quoted = m[1]!.startsWith('"');
    return { kind: 'module', name: unquote(m[1]!), container: quoted ? 'transparent' : 'namespace', needsBody: true };
  }
  if (/^declare\s+global\b/.test(head)) return { kind: 'module', name: null, container: 'transparent' };
  if ((m = JS_CONST.exec(head))) return jsValue(m[1]!, m[2]!, 'top');
  if ((m = JS_MEMBER.exec(head)) && JS_FUNCTION_VALUE.test(m[3]!)) return jsMemberFunction(m[1]!, m[2]!);
  if (/^(?:export\s+default|module\.exports\s*=)\s*\{/.test(head)) {
    const name = head.startsWith('export') ? 'default' : 'exports';
    return { kind: 'block', name, container: 'object', quietHeader: true, expression: true };
  }
  if ((m = JS_CALL.exec(head)) && !NOT_MEMBERS.has(m[1]!)) {
    const title = TEST_CALLS.test(m[1]!) && m[2] ? m[2].replace(/\s+/g, ' ').trim() || null : null;
    return { kind: 'block', name: title, minLines: 3, expression: true };
  }
  return null;
}

function jsMember(head: string, scope: Scope): Decl | null {
  if (scope === 'object') {
    let m = JS_OBJECT_METHOD.exec(head);
    if (m && !NOT_MEMBERS.has(m[1]!)) return { kind: 'method', name: unquote(m[1]!), needsBody: true };
    if ((m = JS_OBJECT_PROPERTY.exec(head))) return jsValue(unquote(m[1]!), m[2]!, scope);
    return null;
  }
  let m = JS_METHOD.exec(head);
  if (m && !NOT_MEMBERS.has(m[1]!)) return { kind: 'method', name: m[1]!, needsBody: true };
  if ((m = JS_FIELD.exec(head)) && JS_FUNCTION_VALUE.test(m[2]!)) {
    return { kind: 'method', name: m[1]!, arrow: true, expression: true };
  }
  return null;
}

/** JavaScript and TypeScript (with JSX). */
export const JS_MATCHER: DeclMatcher = {
  match: (head, scope) => (scope === 'top' ? jsTop(head) : jsMember(head, scope)),
  attribute: /^@[\w$.]+/,
};

const GO_METHOD = /^func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)/;
const GO_FUNCTION = /^func\s+([A-Za-z_]\w*)/;
const GO_TYPE = /^type\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s+(struct|interface)?/;
const GO_VALUE = /^(?:var|const)\s+([A-Za-z_]\w*)\b/;

/** Go: `func (r *Recv) Name(` is `Recv.Name`. */
export const GO_MATCHER: DeclMatcher = {
  match(head) {
    let m = GO_METHOD.exec(head);
    if (m) return { kind: 'method', name: `${m[1]}.${m[2]}` };
    if ((m = GO_FUNCTION.exec(head))) return { kind: 'function', name: m[1]! };
    if ((m = GO_TYPE.exec(head))) return { kind: 'class', name: m[1]!, minLines: m[2] ? 1 : 3, expression: !m[2] };
    if ((m = GO_VALUE.exec(head))) return { kind: 'block', name: m[1]!, minLines: 3, expression: true };
    return null;
  },
  attribute: null,
};

const RUST_VIS = '(?:pub(?:\\s*\\([^)]*\\))?\\s+)?';
const RUST_FN = new RegExp(`^${RUST_VIS}(?:(?:default|const|async|unsafe|extern(?:\\s+"[^"]*")?)\\s+)*fn\\s+(\\w+)`);
const RUST_TYPE = new RegExp(`^${RUST_VIS}(?:(?:unsafe|auto)\\s+)*(struct|enum|union|trait)\\s+(\\w+)`);
const RUST_MOD = new RegExp(`^${RUST_VIS}mod\\s+(\\w+)`);
const RUST_VALUE = new RegExp(`^${RUST_VIS}(?:const|static)\\s+(?:mut\\s+)?(\\w+)`);
const RUST_MACRO = /^macro_rules!\s*(\w+)/;

/** The type an `impl` block is for: `impl<T: Clone> fmt::Display for Pool<T>` → Pool. */
export function implTarget(head: string): string | null {
  let rest = head.replace(/^(?:unsafe\s+)?impl\s*/, '');
  if (rest.startsWith('<')) rest = rest.slice(balancedAngle(rest));
  const forAt = rest.search(/\sfor\s/);
  if (forAt >= 0) rest = rest.slice(forAt + 5);
  const path = /^\s*&?(?:dyn\s+)?([\w:]+)/.exec(rest)?.[1];
  return path?.split('::').pop() || null;
}

function balancedAngle(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>' && text[i - 1] !== '-' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Rust: `impl X { fn y() }` is `X.y`; traits hold their default methods; inline `mod`s qualify. */
export const RUST_MATCHER: DeclMatcher = {
  match(head) {
    let m = RUST_FN.exec(head);
    if (m) return { kind: 'function', name: m[1]!, needsBody: true };
    if ((m = RUST_TYPE.exec(head))) return { kind: 'class', name: m[2]!, container: 'class', needsBody: true };
    if (/^(?:unsafe\s+)?impl\b/.test(head)) {
      return { kind: 'class', name: implTarget(head), container: 'class', needsBody: true, quietHeader: true };
    }
    if ((m = RUST_MOD.exec(head))) return { kind: 'module', name: m[1]!, container: 'namespace', needsBody: true };
    if ((m = RUST_MACRO.exec(head))) return { kind: 'function', name: m[1]! };
    if (/^(?:unsafe\s+)?extern\s+"[^"]*"\s*\{/.test(head))
      return { kind: 'module', name: null, container: 'transparent' };
    if ((m = RUST_VALUE.exec(head))) return { kind: 'block', name: m[1]!, minLines: 3, expression: true };
    return null;
  },
  attribute: /^#\[/,
};
