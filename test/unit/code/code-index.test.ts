// The code index on a real SQLite database: code fields (symbol, doc, identifiers), related words,
// the language preference, and a file's chunks replaced together.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  analyzeCodeQuery,
  createCodeIndex,
  type ChunkRecord,
  type CodeIndex,
} from '../../../src/core/code/index/code-index.js';
import { openDatabase, type Db } from '../../../src/store/database.js';

let dir: string;
let db: Db;
let code: CodeIndex;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-'));
  db = openDatabase(dir);
  code = createCodeIndex(db);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const chunk = (over: Partial<ChunkRecord>): ChunkRecord => ({
  source: 'repo',
  path: 'src/a.py',
  startLine: 1,
  endLine: 3,
  language: 'python',
  kind: 'function',
  symbol: null,
  doc: null,
  code: '',
  ...over,
});

describe('code index', () => {
  it('ranks a matching symbol and doc comment above the same words in a body', () => {
    code.replaceFile('repo', 'src/fs.py', [chunk({ path: 'src/fs.py', symbol: 'remove_empty_dirs', doc: 'Delete empty directories under a root.', code: 'def remove_empty_dirs(root):\n    for d in walk(root): rmdir(d)' })], 'h1', 1); // prettier-ignore
    code.replaceFile('repo', 'src/misc.py', [chunk({ path: 'src/misc.py', symbol: 'helper', code: 'def helper(x):\n    # remove empty dirs later\n    return x' })], 'h2', 1); // prettier-ignore
    const hits = code.search('remove empty directories', { limit: 5 });
    expect(hits.map((h) => h.path)).toEqual(['src/fs.py', 'src/misc.py']);
    expect(hits[0]).toMatchObject({ symbol: 'remove_empty_dirs', startLine: 1, language: 'python' });
  });

  it('matches related words at a low weight ("delete a dict key" finds remove/dictionary)', () => {
    code.replaceFile('repo', 'a.py', [chunk({ path: 'a.py', symbol: 'remove_key', doc: 'Remove a key from a dictionary.', code: 'def remove_key(d, k): d.pop(k, None)' })], 'h', 1); // prettier-ignore
    expect(analyzeCodeQuery('delete dict key').terms.get('remov')).toBeLessThan(1);
    expect(code.search('delete dict key', { limit: 3 }).map((h) => h.symbol)).toEqual(['remove_key']);
  });

  it('prefers chunks in the languages a query names, without excluding others', () => {
    code.replaceFile('repo', 'x.py', [chunk({ path: 'x.py', symbol: 'read_json', doc: 'Read a JSON file.', code: 'def read_json(path): return json.load(open(path))' })], 'p', 1); // prettier-ignore
    code.replaceFile('repo', 'x.ts', [chunk({ path: 'x.ts', language: 'typescript', symbol: 'readJson', doc: 'Read a JSON file.', code: 'export function readJson(path: string) { return JSON.parse(readFileSync(path, "utf8")); }' })], 't', 1); // prettier-ignore
    for (const language of ['python', 'typescript']) {
      const preferred = code.search('read json file', { limit: 2, languages: [language] });
      expect(preferred).toHaveLength(2);
      expect(preferred[0]!.language).toBe(language);
    }
  });

  it("replaces a file's chunks together, and forgets a file with none", () => {
    code.replaceFile('repo', 'b.py', [chunk({ path: 'b.py', symbol: 'frobnicate', code: 'def frobnicate(): pass' })], 'v1', 1); // prettier-ignore
    code.replaceFile('repo', 'b.py', [chunk({ path: 'b.py', symbol: 'transmogrify', code: 'def transmogrify(): pass' }), chunk({ path: 'b.py', startLine: 5, endLine: 6, symbol: 'defenestrate', code: 'def defenestrate(): pass' })], 'v2', 2); // prettier-ignore
    expect(code.search('frobnicate', { limit: 5 })).toEqual([]);
    expect(code.search('transmogrify', { limit: 5 }).map((h) => h.symbol)).toEqual(['transmogrify']);
    expect(code.count()).toBe(2);
    code.replaceFile('repo', 'b.py', [], 'gone', 3);
    expect(code.count()).toBe(0);
    expect(code.search('defenestrate', { limit: 5 })).toEqual([]);
  });
});
