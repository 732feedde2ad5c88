/**
 * Languages of source files: detection from a path (and a shebang for extension-less scripts), the
 * chunker family of each language, names used in Markdown fences, and language words in queries.
 */

/** How a language is cut into chunks (see chunk.ts). */
export type ChunkFamily = 'python' | 'braces' | 'ruby' | 'shell' | 'sql' | 'markdown' | 'config' | 'text';

interface LanguageRow {
  id: string;
  family: ChunkFamily;
  /** File extensions, without the dot. */
  ext: string;
  /** Whole file names (case-insensitive). */
  names?: string;
  /** Other names: fence info strings, shebang interpreters. */
  aliases?: string;
  /** Words that name the language in a query ("golang", "c++"); `lang:<id>` works for every language. */
  query?: string;
}

// The ids match the code index's language list (code-index.ts); other languages are detected so that a
// chunk says what it holds, and are cut into windows.
const LANGUAGES: readonly LanguageRow[] = [
  { id: 'python', family: 'python', ext: 'py pyw pyi', names: 'sconstruct sconscript', aliases: 'py python2 python3 py3 pypy pypy3', query: 'python python3 py' }, // prettier-ignore
  { id: 'typescript', family: 'braces', ext: 'ts tsx mts cts', aliases: 'ts tsx deno ts-node bun', query: 'typescript ts tsx' }, // prettier-ignore
  { id: 'javascript', family: 'braces', ext: 'js jsx mjs cjs', aliases: 'js jsx node nodejs mjs cjs', query: 'javascript js jsx node nodejs node.js ecmascript' }, // prettier-ignore
  { id: 'go', family: 'braces', ext: 'go', aliases: 'golang', query: 'golang go' },
  { id: 'rust', family: 'braces', ext: 'rs', aliases: 'rs', query: 'rust' },
  { id: 'java', family: 'braces', ext: 'java', query: 'java' },
  { id: 'kotlin', family: 'braces', ext: 'kt kts', aliases: 'kt kts', query: 'kotlin' },
  { id: 'c', family: 'braces', ext: 'c h', query: 'c' },
  { id: 'cpp', family: 'braces', ext: 'cpp cc cxx c++ hpp hh hxx h++ ipp inl', aliases: 'c++ cxx', query: 'cpp c++ cxx' }, // prettier-ignore
  { id: 'csharp', family: 'braces', ext: 'cs csx', aliases: 'cs c# dotnet', query: 'csharp c# .net dotnet' },
  { id: 'ruby', family: 'ruby', ext: 'rb rake gemspec ru', names: 'gemfile rakefile guardfile podfile', aliases: 'rb jruby', query: 'ruby' }, // prettier-ignore
  { id: 'php', family: 'braces', ext: 'php phtml php8', query: 'php' },
  { id: 'swift', family: 'braces', ext: 'swift', query: 'swift swiftui' },
  { id: 'scala', family: 'braces', ext: 'scala sc sbt', query: 'scala' },
  { id: 'shell', family: 'shell', ext: 'sh bash zsh ksh fish', names: '.bashrc .zshrc .profile .bash_profile', aliases: 'sh bash zsh ksh dash ash fish console shellsession shell-session', query: 'bash zsh sh shellscript' }, // prettier-ignore
  { id: 'sql', family: 'sql', ext: 'sql psql pgsql', aliases: 'postgresql postgres mysql sqlite plpgsql tsql' },
  { id: 'markdown', family: 'markdown', ext: 'md markdown mdx mkd', aliases: 'md' },
  { id: 'json', family: 'config', ext: 'json jsonc json5 geojson', names: '.babelrc .eslintrc .prettierrc' },
  { id: 'yaml', family: 'config', ext: 'yaml yml', aliases: 'yml' },
  { id: 'toml', family: 'config', ext: 'toml ini cfg conf', names: 'pipfile .editorconfig .gitconfig', aliases: 'ini' },
  { id: 'html', family: 'text', ext: 'html htm xhtml vue svelte astro', aliases: 'xhtml' },
  { id: 'css', family: 'text', ext: 'css scss sass less', aliases: 'scss sass less' },
  { id: 'dart', family: 'text', ext: 'dart' },
  { id: 'lua', family: 'text', ext: 'lua' },
  { id: 'perl', family: 'text', ext: 'pl pm', aliases: 'perl5' },
  { id: 'r', family: 'text', ext: 'r' },
  { id: 'elixir', family: 'text', ext: 'ex exs' },
  { id: 'haskell', family: 'text', ext: 'hs' },
  { id: 'xml', family: 'text', ext: 'xml xsd xsl svg plist csproj' },
  { id: 'dockerfile', family: 'text', ext: 'dockerfile', names: 'dockerfile containerfile', aliases: 'docker' },
  { id: 'makefile', family: 'text', ext: 'mk mak', names: 'makefile gnumakefile', aliases: 'make' },
];

const BY_ID = new Map(LANGUAGES.map((row) => [row.id, row]));
const BY_EXT = new Map<string, string>();
const BY_NAME = new Map<string, string>();
const BY_ALIAS = new Map<string, string>();
const BY_QUERY_WORD = new Map<string, string>();
for (const row of LANGUAGES) {
  for (const ext of row.ext.split(' ')) BY_EXT.set(ext, row.id);
  for (const name of row.names?.split(' ') ?? []) BY_NAME.set(name, row.id);
  for (const alias of [row.id, ...(row.aliases?.split(' ') ?? [])]) BY_ALIAS.set(alias, row.id);
  for (const word of row.query?.split(' ') ?? []) BY_QUERY_WORD.set(word, row.id);
}

/** Every language id this module knows, in table order. */
export const LANGUAGE_IDS: readonly string[] = LANGUAGES.map((row) => row.id);

/** The chunker family of a language id; unknown ids are cut into windows ('text'). */
export function languageFamily(id: string): ChunkFamily {
  return BY_ID.get(id)?.family ?? 'text';
}

/**
 * The language id for a name as people write it (a fence info string, a shebang interpreter, an
 * extension, an id): 'ts' → typescript, 'c++' → cpp, 'python3' → python. Null when unknown.
 */
export function normalizeLanguage(name: string): string | null {
  const key = name.trim().toLowerCase().replace(/^\./, '');
  if (key === '') return null;
  return BY_ALIAS.get(key) ?? BY_EXT.get(key) ?? BY_ALIAS.get(key.replace(/[\d.]+$/, '')) ?? null;
}

// `#!/usr/bin/env -S deno run`, `#!/bin/bash -e`, `#!/usr/bin/python3.11`
const SHEBANG = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:\S*\/)?([\w.+-]+)/;

/** The language named by a script's `#!` line, or null. */
export function languageFromShebang(firstLine: string): string | null {
  const m = SHEBANG.exec(firstLine);
  return m ? normalizeLanguage(m[1]!) : null;
}

/**
 * The language id of a file from its name, then its extension, then (for unknown extensions) the
 * shebang on the first line of `text`. 'text' when nothing matches. `foo.d.ts` is typescript.
 */
export function detectLanguage(path: string, text?: string): string {
  const base = (path.split(/[\\/]/).pop() ?? '').toLowerCase();
  const byName = BY_NAME.get(base);
  if (byName) return byName;
  const dot = base.lastIndexOf('.');
  const byExt = dot >= 0 ? BY_EXT.get(base.slice(dot + 1)) : undefined;
  if (byExt) return byExt;
  if (!text?.startsWith('#!')) return 'text';
  const end = text.indexOf('\n');
  return languageFromShebang(end < 0 ? text : text.slice(0, end)) ?? 'text';
}

// "node" is also a tree, DOM or graph node; "go" is also a verb.
const NOT_NODE_BEFORE = new Set(['tree', 'dom', 'linked', 'list', 'graph', 'child', 'parent', 'leaf', 'root', 'ast', 'xml', 'html', 'text', 'element', 'the', 'a', 'each', 'next', 'current', 'new', 'first', 'last']); // prettier-ignore
const GO_VERB_AFTER = new Set(['to', 'back', 'ahead', 'away', 'through', 'out', 'over', 'up', 'down', 'into', 'live', 'home', 'forward', 'wrong', 'beyond']); // prettier-ignore
const GO_LANGUAGE_BEFORE = new Set(['in', 'with', 'using', 'for', 'idiomatic', 'modern']);
// Prepositions that only tied the language to the rest: "parse json in python" → "parse json".
const TIES = new Set(['in', 'with', 'using', 'for']);

function isGoLanguage(words: string[], i: number): boolean {
  const before = words[i - 1];
  const after = words[i + 1];
  if (before !== undefined && GO_LANGUAGE_BEFORE.has(before)) return true;
  if (after === undefined) return true;
  return i === 0 && !GO_VERB_AFTER.has(after);
}

function queryLanguage(words: string[], i: number): string | null {
  const word = words[i]!;
  const named = /^(?:lang|language):(.+)$/.exec(word);
  if (named) return normalizeLanguage(named[1]!);
  const id = BY_QUERY_WORD.get(word);
  if (id === 'go' && word === 'go' && !isGoLanguage(words, i)) return null;
  if (word === 'node' && NOT_NODE_BEFORE.has(words[i - 1] ?? '')) return null;
  return id ?? null;
}

/**
 * The languages a query names ("retry with backoff in golang", "lang:rust") and the query without
 * those words (and without the "in"/"with"/"using"/"for" that tied them to it). Data and markup
 * formats (json, sql, html…) are topics more often than filters, so only `lang:` names them.
 */
export function languagesInQuery(query: string): { languages: string[]; rest: string } {
  const tokens = query.split(/\s+/).filter((token) => token !== '');
  const words = tokens.map((token) => token.toLowerCase().replace(/^[("'`]+|[)"'`,;:!?]+$|(?<=[\w+#])\.$/g, ''));
  const languages: string[] = [];
  const keep = tokens.map(() => true);
  for (let i = 0; i < words.length; i++) {
    const id = queryLanguage(words, i);
    if (id === null) continue;
    if (!languages.includes(id)) languages.push(id);
    keep[i] = false;
    if (i > 0 && keep[i - 1] && TIES.has(words[i - 1]!)) keep[i - 1] = false;
  }
  return { languages, rest: tokens.filter((_, i) => keep[i]).join(' ') };
}
