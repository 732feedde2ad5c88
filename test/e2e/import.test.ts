/**
 * `trawl import` as a user runs it (the built CLI in a child process): JSONL, gzipped JSONL, records
 * without a URL, bad lines, folders of HTML/Markdown/text, and re-imports; the store is read back from
 * the data directory's SQLite file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, tempDir } from '../helpers/app.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function dir(): string {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

function trawl(args: string[]) {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TRAWL_DATA_DIR: '', TRAWL_LOG_LEVEL: 'warn' },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

interface Doc {
  url: string;
  title: string;
  text: string;
  author: string | null;
  published_date: string | null;
  kind: string;
  origin: string;
  collection: string | null;
  content_hash: string;
  fetched_at: string;
  metadata: string;
}

function docs(data: string): Map<string, Doc> {
  const db = new Database(path.join(data, 'trawl.sqlite'), { readonly: true });
  const rows = db.prepare('SELECT * FROM documents').all() as Doc[];
  db.close();
  return new Map(rows.map((r) => [r.url, r]));
}

const jsonl = (records: unknown[]) => records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n');

describe('trawl import', () => {
  it('imports JSONL and gzipped JSONL; records without url get import:// ids', () => {
    const data = dir();
    const files = dir();
    const notes = path.join(files, 'notes.jsonl');
    fs.writeFileSync(
      notes,
      jsonl([
        { _id: 'a1', title: 'First', text: 'Alpha text.', author: 'Ada', publishedDate: '2024-03-01' },
        { url: 'HTTPS://Example.com/page?utm_source=x#top', text: 'Beta text.' },
        { _id: 42, text: 'Numbered.' },
      ]) + '\n\n',
    );
    const papers = path.join(files, 'papers.jsonl.gz');
    fs.writeFileSync(papers, gzipSync(jsonl([{ _id: 'p/1', text: 'Paper one.' }])));
    const run = trawl(['import', notes, papers, '--data-dir', data]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^imported 4, skipped 0, errors 0 from 2 input\(s\) into notes, papers in [\d.]+ s$/m);
    const d = docs(data);
    expect(d.size).toBe(4);
    expect(d.get('import://notes/a1')).toMatchObject({
      title: 'First',
      text: 'Alpha text.',
      author: 'Ada',
      published_date: '2024-03-01T00:00:00.000Z',
      origin: 'import',
      collection: 'notes',
      content_hash: createHash('sha256').update('Alpha text.').digest('hex'),
    });
    expect(JSON.parse(d.get('import://notes/a1')!.metadata)).toEqual({ id: 'a1' });
    expect(d.get('https://example.com/page')).toMatchObject({ text: 'Beta text.', collection: 'notes', title: '' });
    expect(d.has('import://notes/42')).toBe(true);
    expect(d.get('import://papers/p/1')).toMatchObject({ text: 'Paper one.', collection: 'papers' });
  });

  it('skips bad records, reports each with its line number and exits 1; --collection and --batch apply', () => {
    const data = dir();
    const file = path.join(dir(), 'mixed.jsonl');
    const good = Array.from({ length: 7 }, (_, i) => ({ _id: `g${i}`, text: `Good ${i}` }));
    fs.writeFileSync(
      file,
      jsonl([
        good[0],
        good[1],
        '{"_id": "broken", "text": ',
        good[2],
        { _id: 'x', title: 'no text' },
        { text: 'no id' },
        good[3],
        { _id: 'y', text: 'bad date', publishedDate: 'someday' },
        { url: 'ftp://example.com/a', text: 'bad url' },
        ...good.slice(4),
      ]),
    );
    const run = trawl(['import', file, '--collection', 'kb', '--batch', '2', '--data-dir', data, '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/mixed\.jsonl:3: invalid JSON/);
    expect(run.stderr).toMatch(/mixed\.jsonl:5: "text" is missing/);
    expect(run.stderr).toMatch(/mixed\.jsonl:6: a record needs "url" or "_id"/);
    expect(run.stderr).toMatch(/mixed\.jsonl:8: "publishedDate" must be/);
    expect(run.stderr).toMatch(/mixed\.jsonl:9: "url" must be an http\(s\) URL/);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('import: 5 rejected (each is reported above with its reason); the rest was imported'); // prettier-ignore
    const summary = JSON.parse(run.stdout) as { inputs: { imported: number; errors: number; collection: string }[] };
    expect(summary.inputs[0]).toMatchObject({ imported: 7, errors: 5, collection: 'kb' });
    const d = docs(data);
    expect([...d.keys()].sort()).toEqual(good.map((g) => `import://kb/${g._id}`).sort());
  });

  it('imports a folder of HTML, Markdown and text files under import://<folder>/<path>', () => {
    const data = dir();
    const root = path.join(dir(), 'handbook');
    fs.mkdirSync(path.join(root, 'guide'), { recursive: true });
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(
      path.join(root, 'index.html'),
      '<!doctype html><html><head><title>Handbook</title></head><body><nav><a href="guide/setup.md">Setup</a></nav>' +
        '<main><h1>Handbook</h1><p>Welcome to the team handbook. It explains how we work, how we plan and how we ship.</p>' +
        '<p>Read the setup guide first; it takes about an hour and covers every tool you need.</p></main></body></html>',
    );
    fs.writeFileSync(
      path.join(root, 'guide', 'setup.md'),
      '# Setup\n\nInstall the tools:\n\n```sh\nnpm ci\n```\n\nThen run the tests.\n',
    );
    fs.writeFileSync(path.join(root, 'notes.txt'), 'Plain notes about the release process.\n');
    // a saved company page: its JSON-LD reaches the search classifiers as a fetched page's would
    fs.writeFileSync(
      path.join(root, 'about.html'),
      '<!doctype html><html><head><title>Acme Robotics</title><meta property="og:type" content="website">' +
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme Robotics",' +
        '"url":"https://acme.example","foundingDate":"2011","description":"Acme Robotics builds warehouse robots."}</script>' +
        '</head><body><main><h1>About Acme Robotics</h1><p>Acme Robotics builds warehouse robots that pick, pack and ' +
        'ship. The company was founded in 2011 and employs two hundred people.</p></main></body></html>',
    );
    fs.writeFileSync(path.join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    fs.writeFileSync(path.join(root, '.git', 'HEAD.md'), '# not content');
    const mtime = new Date('2023-05-06T07:08:09Z');
    fs.utimesSync(path.join(root, 'notes.txt'), mtime, mtime);

    const run = trawl(['import', root, '--data-dir', data]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^imported 4, skipped 1, errors 0 from 1 input\(s\) into handbook/m);
    // the skipped file is named with why; a skip is not an error
    expect(run.stderr).toMatch(/^import: .*handbook: logo\.png: skipped: \.png files are not imported \(a folder import reads \.html, \.htm, \.md, \.markdown, \.txt\)$/m); // prettier-ignore
    const d = docs(data);
    expect([...d.keys()].sort()).toEqual([
      'import://handbook/about.html',
      'import://handbook/guide/setup.md',
      'import://handbook/index.html',
      'import://handbook/notes.txt',
    ]);
    const html = d.get('import://handbook/index.html')!;
    expect(html).toMatchObject({ title: 'Handbook', kind: 'html', origin: 'import', collection: 'handbook' });
    expect(html.text).toContain('Welcome to the team handbook');
    expect(html.text).not.toMatch(/^Setup$/m); // the navigation link is not main text
    expect(d.get('import://handbook/guide/setup.md')).toMatchObject({ kind: 'markdown' });
    expect(d.get('import://handbook/guide/setup.md')!.text).toContain('npm ci');
    expect(d.get('import://handbook/notes.txt')).toMatchObject({ kind: 'text', fetched_at: mtime.toISOString() });
    expect(JSON.parse(d.get('import://handbook/about.html')!.metadata)).toMatchObject({
      ldTypes: ['Organization'],
      ogType: 'website',
      organization: { name: 'Acme Robotics' },
    });
    const db = new Database(path.join(data, 'trawl.sqlite'), { readonly: true });
    const entities = db
      .prepare('SELECT entities FROM search_docs WHERE url = ?')
      .pluck()
      .get('import://handbook/about.html') as string | null;
    db.close();
    expect(JSON.parse(entities ?? 'null')).toEqual([expect.objectContaining({ properties: expect.objectContaining({ name: 'Acme Robotics' }) })]); // prettier-ignore
  });

  it('updates documents on re-import instead of duplicating them', () => {
    const data = dir();
    const file = path.join(dir(), 'faq.jsonl');
    fs.writeFileSync(
      file,
      jsonl([
        { _id: 'q1', text: 'Old answer.' },
        { _id: 'q2', text: 'Same.' },
      ]),
    );
    expect(trawl(['import', file, '--data-dir', data]).code).toBe(0);
    const before = docs(data);
    fs.writeFileSync(
      file,
      jsonl([
        { _id: 'q1', text: 'New answer.' },
        { _id: 'q2', text: 'Same.' },
      ]),
    );
    expect(trawl(['import', file, '--data-dir', data]).code).toBe(0);
    const after = docs(data);
    expect(after.size).toBe(2);
    expect(after.get('import://faq/q1')!.text).toBe('New answer.');
    expect(after.get('import://faq/q1')!.content_hash).not.toBe(before.get('import://faq/q1')!.content_hash);
    expect(after.get('import://faq/q2')!.content_hash).toBe(before.get('import://faq/q2')!.content_hash);
  });

  it('a batch that fails stops the import: whole batches only, and importing again lands every record once', () => {
    const data = dir();
    const file = path.join(dir(), 'notes.jsonl');
    const records = Array.from({ length: 60 }, (_, i) => ({ _id: `n${i}`, text: `Note number ${i} about tidal flats.` })); // prettier-ignore
    fs.writeFileSync(file, jsonl(records));
    // the store refuses one record of the third batch of 5 (as a full disk or a broken file would)
    expect(trawl(['import', file, '--data-dir', data, '--batch', '5']).code).toBe(0);
    const db = new Database(path.join(data, 'trawl.sqlite'));
    db.exec('DELETE FROM documents; DELETE FROM search_docs;');
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON documents WHEN NEW.url = 'import://notes/n12'
      BEGIN SELECT RAISE(ABORT, 'the store refused n12'); END`);
    db.close();
    const failed = trawl(['import', file, '--data-dir', data, '--batch', '5']);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(
      `trawl import: ${file}: a batch of 5 records was not written: the store refused n12`,
    );
    expect(failed.stderr).toContain('run the same command again to import the rest');
    const stored = [...docs(data).keys()].map((url) => Number(url.slice('import://notes/n'.length)));
    const perBatch = new Map<number, number>();
    for (const n of stored) perBatch.set(Math.floor(n / 5), (perBatch.get(Math.floor(n / 5)) ?? 0) + 1);
    // the batches before it, whole; none of it; of those after it, only the ones already handed to
    // the writer (at most two), each whole
    expect(perBatch.get(0)).toBe(5);
    expect(perBatch.get(1)).toBe(5);
    expect(perBatch.has(2)).toBe(false);
    for (const [batch, n] of perBatch) {
      expect(n, `batch ${batch}`).toBe(5);
      expect(batch, 'a batch handed on after the failure').toBeLessThanOrEqual(4);
    }
    const fixed = new Database(path.join(data, 'trawl.sqlite'));
    fixed.exec('DROP TRIGGER refuse');
    fixed.close();
    expect(trawl(['import', file, '--data-dir', data, '--batch', '5']).code).toBe(0);
    expect(docs(data).size).toBe(60);
    const index = new Database(path.join(data, 'trawl.sqlite'), { readonly: true });
    expect(index.prepare('SELECT COUNT(*) FROM search_docs').pluck().get()).toBe(60);
    index.close();
  });

  it('rejects missing inputs and bad flags with exit code 2 before writing anything', () => {
    const data = dir();
    const file = path.join(dir(), 'ok.jsonl');
    fs.writeFileSync(file, jsonl([{ _id: '1', text: 'x' }]));
    for (const args of [
      [file, path.join(data, 'missing.jsonl')],
      [file, '--batch', '0'],
      [file, '--collection', 'a/b'],
    ]) {
      const r = trawl(['import', ...args, '--data-dir', data]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^trawl import: /);
    }
    expect(fs.existsSync(path.join(data, 'trawl.sqlite'))).toBe(false);
  });
});
