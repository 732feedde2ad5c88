import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  languageFamily,
  languageFromShebang,
  languagesInQuery,
  normalizeLanguage,
} from '../../../src/core/code/chunk/languages.js';

describe('detectLanguage', () => {
  it.each([
    ['py/http_client.py', 'python'],
    ['stubs/os.pyi', 'python'],
    ['src/app.ts', 'typescript'],
    ['src/App.tsx', 'typescript'],
    ['types/index.d.ts', 'typescript'],
    ['lib/index.mts', 'typescript'],
    ['lib/index.js', 'javascript'],
    ['lib/App.jsx', 'javascript'],
    ['lib/esm.mjs', 'javascript'],
    ['lib/common.cjs', 'javascript'],
    ['go/server.go', 'go'],
    ['rust/lib.rs', 'rust'],
    ['java/Cache.java', 'java'],
    ['app/Main.kt', 'kotlin'],
    ['build.gradle.kts', 'kotlin'],
    ['src/list.c', 'c'],
    ['include/list.h', 'c'],
    ['src/vec.hpp', 'cpp'],
    ['src/vec.cc', 'cpp'],
    ['Store.cs', 'csharp'],
    ['lib/store.rb', 'ruby'],
    ['Gemfile', 'ruby'],
    ['index.php', 'php'],
    ['Sources/Stack.swift', 'swift'],
    ['Shapes.scala', 'scala'],
    ['scripts/build.sh', 'shell'],
    ['.bashrc', 'shell'],
    ['db/schema.sql', 'sql'],
    ['docs/guide.md', 'markdown'],
    ['package.json', 'json'],
    ['tsconfig.json', 'json'],
    ['.github/workflows/ci.yml', 'yaml'],
    ['Cargo.toml', 'toml'],
    ['setup.cfg', 'toml'],
    ['index.html', 'html'],
    ['styles/site.scss', 'css'],
    ['Dockerfile', 'dockerfile'],
    ['Makefile', 'makefile'],
    ['LICENSE', 'text'],
    ['notes.txt', 'text'],
    ['C:\\repo\\src\\Main.JAVA', 'java'],
  ])('%s is %s', (path, language) => {
    expect(detectLanguage(path)).toBe(language);
  });

  it('reads the shebang of scripts without a known extension', () => {
    expect(detectLanguage('bin/tool', '#!/usr/bin/env python3\nprint(1)\n')).toBe('python');
    expect(detectLanguage('bin/run', '#!/bin/bash -e\necho hi')).toBe('shell');
    expect(detectLanguage('bin/cli', '#!/usr/bin/env node\n')).toBe('javascript');
    expect(detectLanguage('bin/task', '#!/usr/bin/env -S deno run --allow-net\n')).toBe('typescript');
    expect(detectLanguage('bin/rake', '#!/usr/bin/ruby')).toBe('ruby');
    expect(detectLanguage('bin/tool', 'no shebang here')).toBe('text');
    // The extension wins over the shebang.
    expect(detectLanguage('tool.py', '#!/bin/sh\n')).toBe('python');
  });

  it('reads interpreters from shebang lines', () => {
    expect(languageFromShebang('#!/usr/bin/python3.11')).toBe('python');
    expect(languageFromShebang('#! /bin/zsh')).toBe('shell');
    expect(languageFromShebang('#!/usr/bin/env perl')).toBe('perl');
    expect(languageFromShebang('#!/usr/bin/env unknown-thing')).toBeNull();
  });
});

describe('normalizeLanguage', () => {
  it.each([
    ['ts', 'typescript'],
    ['TSX', 'typescript'],
    ['js', 'javascript'],
    ['py', 'python'],
    ['Python3', 'python'],
    ['golang', 'go'],
    ['rs', 'rust'],
    ['c++', 'cpp'],
    ['C#', 'csharp'],
    ['cs', 'csharp'],
    ['kt', 'kotlin'],
    ['sh', 'shell'],
    ['bash', 'shell'],
    ['console', 'shell'],
    ['yml', 'yaml'],
    ['md', 'markdown'],
    ['.rb', 'ruby'],
    ['postgresql', 'sql'],
  ])('%s → %s', (name, id) => {
    expect(normalizeLanguage(name)).toBe(id);
  });

  it('knows nothing of unknown names', () => {
    expect(normalizeLanguage('mermaid')).toBeNull();
    expect(normalizeLanguage('')).toBeNull();
  });
});

describe('languageFamily', () => {
  it('tells which chunker cuts a language', () => {
    expect(languageFamily('python')).toBe('python');
    expect(languageFamily('typescript')).toBe('braces');
    expect(languageFamily('csharp')).toBe('braces');
    expect(languageFamily('ruby')).toBe('ruby');
    expect(languageFamily('shell')).toBe('shell');
    expect(languageFamily('sql')).toBe('sql');
    expect(languageFamily('markdown')).toBe('markdown');
    expect(languageFamily('yaml')).toBe('config');
    expect(languageFamily('html')).toBe('text');
    expect(languageFamily('no-such-language')).toBe('text');
  });
});

describe('languagesInQuery', () => {
  it.each([
    ['retry with backoff in golang', ['go'], 'retry with backoff'],
    ['python parse json', ['python'], 'parse json'],
    ['parse json in python', ['python'], 'parse json'],
    ['Rust async trait?', ['rust'], 'async trait?'],
    ['c++ smart pointers vs C# garbage collection', ['cpp', 'csharp'], 'smart pointers vs garbage collection'],
    ['node stream pipeline', ['javascript'], 'stream pipeline'],
    ['typescript ts generic constraints', ['typescript'], 'generic constraints'],
    ['dependency injection in .NET', ['csharp'], 'dependency injection'],
    ['http server in go', ['go'], 'http server'],
    ['go http client timeout', ['go'], 'http client timeout'],
    ['lang:sql window functions', ['sql'], 'window functions'],
    ['ruby and java interop', ['ruby', 'java'], 'and interop'],
  ])('%s', (query, languages, rest) => {
    expect(languagesInQuery(query)).toEqual({ languages, rest });
  });

  it('leaves words that only look like languages', () => {
    for (const query of ['go to definition', 'binary tree node depth', 'parse json and yaml', 'how to go back']) {
      expect(languagesInQuery(query)).toEqual({ languages: [], rest: query });
    }
  });
});
