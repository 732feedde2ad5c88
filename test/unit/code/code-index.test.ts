// The code index on a real SQLite database: code fields (symbol, doc, identifiers), related words,
// the language preference, and a file's chunks replaced together.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  analyzeCodeQuery,
  chunkUrl,
  createCodeIndex,
  type ChunkRecord,
  type CodeIndex,
} from '../../../src/core/code/index/code-index.js';
import { openDatabase, type Db } from '../../../src/store/sqlite/database.js';
import { MIGRATIONS } from '../../../src/store/migrations/index.js';

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

describe('code index storage', () => {
  const files = Array.from({ length: 30 }, (_, f) => ({
    path: `src/m${f}.py`,
    hash: `h${f}`,
    chunks: [0, 1].map((k) =>
      chunk({
        path: `src/m${f}.py`,
        startLine: k * 10 + 1,
        endLine: k * 10 + 9,
        symbol: `handler_${f}_${k}`,
        doc: `Handles request kind ${f}.`,
        code: `def handler_${f}_${k}(request):\n    return parse_body(request, ${f})\n`,
      }),
    ),
  }));
  const top = (q: string) => code.search(q, { limit: 5 }).map((h) => `${h.path}:${h.startLine} ${h.symbol}`);

  it('upgrades v14 chunks (keyed by URL) to rows keyed by index id, and the rebuild finds them all', async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-'));
    db.close();
    db = openDatabase(
      dir,
      MIGRATIONS.filter((m) => m.version <= 14),
    );
    const insert = db.prepare(`INSERT INTO code_chunks (url, source, path, start_line, end_line, language, kind,
      symbol, doc, code) VALUES (?, 'repo', ?, ?, ?, 'python', 'function', ?, ?, ?)`);
    for (const f of files)
      for (const c of f.chunks) insert.run(chunkUrl(c), c.path, c.startLine, c.endLine, c.symbol, c.doc, c.code);
    db.close();
    db = openDatabase(dir); // migrations 15 and on
    code = createCodeIndex(db);
    expect(code.count()).toBe(0);
    expect(await code.rebuildIfMarked()).toBe(60);
    expect(code.count()).toBe(60);
    expect(top('handler_7_1')[0]).toBe('src/m7.py:11 handler_7_1');
    expect(db.prepare('SELECT COUNT(*) FROM code_chunks c JOIN code_docs d ON d.id = c.id').pluck().get()).toBe(60);
  });

  it('a rebuild renumbers every chunk to its new index id, and answers as before', async () => {
    code.replaceFiles('repo', files, 1);
    const before = ['handler_3_0', 'parse body request', 'handles request kind 12'].map(top);
    code.index.repo.markRebuild();
    expect(await code.rebuildIfMarked()).toBe(60);
    expect(['handler_3_0', 'parse body request', 'handles request kind 12'].map(top)).toEqual(before);
    const ids = db.prepare('SELECT id FROM code_docs ORDER BY id').pluck().all() as number[];
    expect(code.hitsByIds(ids).map((h) => h.symbol)).toHaveLength(60);
    expect(code.textOf(chunkUrl(files[5]!.chunks[1]!))).toContain('def handler_5_1');
  });

  it('keeps a docstring once, inside the code, and gives it back whole', () => {
    const doc = 'Parses the body.\n\n    Returns a dict.';
    const withDocstring = chunk({
      symbol: 'parse',
      doc,
      code: `def parse(b):\n    """${doc}"""\n    return {}\n`,
    });
    const elsewhere = chunk({
      path: 'src/b.py',
      symbol: 'zebra',
      doc: 'A doc not in the code.',
      code: 'def zebra(): pass\n',
    });
    const files = [
      { path: 'src/a.py', chunks: [withDocstring], hash: 'a' },
      { path: 'src/b.py', chunks: [elsewhere], hash: 'b' },
    ];
    code.replaceFiles('repo', files, 1);
    expect(db.prepare("SELECT doc IS NULL, doc_at FROM code_chunks WHERE symbol = 'parse'").raw().get()).toEqual([
      1, 21,
    ]);
    expect(code.search('parse', { limit: 1 })[0]?.doc).toBe(doc);
    expect(code.search('zebra', { limit: 1 })[0]?.doc).toBe('A doc not in the code.');
    expect(code.textOf(chunkUrl(withDocstring))).toContain('Returns a dict.');
  });

  it('upgrades v15 chunks (code and doc inline) keeping their text, and stores new chunks compressed', async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-code-'));
    db.close();
    db = openDatabase(
      dir,
      MIGRATIONS.filter((m) => m.version <= 15),
    );
    const insert = db.prepare(`INSERT INTO code_chunks (id, source, path, start_line, end_line, language, kind,
      symbol, doc, code, doc_at, doc_len) VALUES (?, 'repo', ?, ?, ?, 'python', 'function', ?, ?, ?, ?, ?)`);
    let id = 0;
    for (const f of files)
      for (const c of f.chunks) {
        // odd chunks as a docstring inside the code (doc null, at its offset), even ones with the doc apart
        const inside = --id % 2 !== 0;
        const code = inside ? `${c.code}    """${c.doc}"""\n` : c.code;
        const at = inside ? code.indexOf(c.doc!) : null;
        insert.run(id, c.path, c.startLine, c.endLine, c.symbol, inside ? null : c.doc, code, at, inside ? c.doc!.length : null); // prettier-ignore
      }
    db.prepare("INSERT INTO code_stats (key, value) VALUES ('rebuild', 1)").run();
    db.close();
    db = openDatabase(dir); // migrations 16 and on
    code = createCodeIndex(db);
    expect(await code.rebuildIfMarked()).toBe(60);
    const [hit] = code.search('handler_7_1', { limit: 1 });
    expect(hit).toMatchObject({ path: 'src/m7.py', symbol: 'handler_7_1', doc: 'Handles request kind 7.' });
    expect(hit!.code).toContain('return parse_body(request, 7)');
    expect(code.textOf(chunkUrl(files[8]!.chunks[0]!))).toContain('Handles request kind 8.');
    // a file indexed again: its new chunks go to a compressed block, the other files' stay inline
    const edited = files[7]!.chunks.map((c) => ({ ...c, code: c.code.replace('parse_body', 'read_body') }));
    code.replaceFile('repo', 'src/m7.py', edited, 'h7b', 2);
    const stored = db.prepare('SELECT text IS NOT NULL, code IS NULL FROM code_chunks WHERE path = ?').raw();
    expect(stored.all('src/m7.py')).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(stored.all('src/m8.py')).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(code.search('read_body', { limit: 2 }).map((h) => [h.symbol, h.doc])).toEqual([
      ['handler_7_0', 'Handles request kind 7.'],
      ['handler_7_1', 'Handles request kind 7.'],
    ]);
  });

  it('gives back texts of any characters whole, from blocks shared by many files', () => {
    const texts = ['naïve café', 'emoji 🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '中文注释', 'tab\tand\r\nlines', ''];
    const many = Array.from({ length: 120 }, (_, f) => ({
      path: `u/${f}.py`,
      hash: `u${f}`,
      chunks: [
        chunk({
          path: `u/${f}.py`,
          symbol: `unicode_${f}`,
          doc: f % 3 === 0 ? null : `Doc ${texts[f % texts.length]} ${f}`,
          code: `def unicode_${f}():\n    return "${texts[f % texts.length]} ${f}"\n`.repeat(1 + (f % 4)),
        }),
      ],
    }));
    code.replaceFiles('repo', many, 1);
    expect(db.prepare('SELECT COUNT(*) FROM code_texts').pluck().get()).toBeGreaterThan(1);
    const ids = db.prepare('SELECT id FROM code_chunks ORDER BY id').pluck().all() as number[];
    const back = code.hitsByIds(ids);
    expect(back.map((h) => [h.symbol, h.doc, h.code])).toEqual(
      many.map((f) => [f.chunks[0]!.symbol, f.chunks[0]!.doc, f.chunks[0]!.code]),
    );
  });

  it('drops a block once its chunks are gone, and moves the rest of a block mostly emptied', () => {
    const many = Array.from({ length: 200 }, (_, f) => ({
      path: `g/${f}.py`,
      hash: `g${f}`,
      chunks: [chunk({ path: `g/${f}.py`, symbol: `gone_${f}`, code: `def gone_${f}(x):\n    return x * ${f}\n` })],
    }));
    code.replaceFiles('repo', many, 1);
    const blocks = () => db.prepare('SELECT COUNT(*) FROM code_texts').pluck().get() as number;
    const before = blocks();
    // every file but each tenth removed: blocks empty or mostly so
    const removed = many.filter((_, f) => f % 10 !== 0).map((f) => ({ path: f.path, chunks: [], hash: '' }));
    code.replaceFiles('repo', removed, 2);
    expect(blocks()).toBeLessThan(before);
    const size = db.prepare('SELECT SUM(size) FROM code_texts').pluck().get() as number;
    const live = db.prepare('SELECT SUM(code_len) FROM code_chunks').pluck().get() as number;
    expect(size).toBeLessThanOrEqual(live * 2);
    const kept = code.search('gone_130', { limit: 1 });
    expect(kept[0]?.code).toBe('def gone_130(x):\n    return x * 130\n');
    expect(code.count()).toBe(20);
  });

  it('replacing a file removes its old chunks from the index and the store', () => {
    code.replaceFiles('repo', files, 1);
    code.replaceFile('repo', 'src/m4.py', [], 'gone', 2);
    expect(code.count()).toBe(58);
    expect(top('handler_4_0').some((h) => h.includes('src/m4.py'))).toBe(false);
    expect(db.prepare("SELECT COUNT(*) FROM code_chunks WHERE path = 'src/m4.py'").pluck().get()).toBe(0);
  });
});
