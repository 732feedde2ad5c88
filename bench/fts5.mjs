// The SQLite FTS5 baseline of issue 23, built in the same run as the Trawl figure it is compared with:
// the same documents inserted through better-sqlite3 with Trawl's own pragmas (src/store/database.ts:
// busy_timeout 5000, WAL, synchronous=NORMAL, foreign_keys ON), a table `docs (url, title, text)` and an
// external-content FTS5 table over title and text (porter unicode61) kept in step by the AFTER INSERT
// trigger the SQLite FTS5 documentation gives for external content, 1,000 documents per transaction,
// then `PRAGMA wal_checkpoint(TRUNCATE)`. No side effects on import.
// Run directly, it builds the JSONL baseline in its own process (as `trawl import` runs in its own):
//   node bench/fts5.mjs import FILE DIR   → prints {docs, seconds, insertSeconds, bytes} as JSON
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';

/** Documents per transaction, as the issue defines the baseline. */
export const FTS5_BATCH = 1000;
export const FTS5_FILE = 'fts5.sqlite';

const SCHEMA = `
  CREATE TABLE docs (url TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL);
  CREATE VIRTUAL TABLE docs_fts USING fts5(
    title, text, content='docs', content_rowid='rowid', tokenize='porter unicode61'
  );
  CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts (rowid, title, text) VALUES (new.rowid, new.title, new.text);
  END;
`;

/** Sum of the sizes of every file under `dir`, recursively (0 when it does not exist). */
export function dirBytes(dir) {
  if (!fs.existsSync(dir)) return 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) bytes += dirBytes(p);
    else if (entry.isFile()) bytes += fs.statSync(p).size;
  }
  return bytes;
}

/** Opens `<dir>/fts5.sqlite` with Trawl's pragmas and creates the baseline's tables. */
function openBaseline(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const db = new Database(path.join(dir, FTS5_FILE));
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  return db;
}

/**
 * Inserts `rows` (an iterable or async iterable of `{url, title, text}`) into a fresh baseline in
 * `dir`, 1,000 per transaction, then checkpoints. Returns `{docs, seconds, insertSeconds, bytes}`:
 * seconds from opening to the end of the checkpoint (insertSeconds: to the last commit); bytes of every file in `dir` after it, measured with the
 * database still open (the -shm file is counted, as on Trawl's side). `dir` should be empty.
 */
export async function buildFts5(dir, rows) {
  const started = performance.now();
  const db = openBaseline(dir);
  const insert = db.prepare('INSERT INTO docs (url, title, text) VALUES (?, ?, ?)');
  const write = db.transaction((batch) => {
    for (const r of batch) insert.run(r.url, r.title ?? '', r.text ?? '');
  });
  let docs = 0;
  let batch = [];
  for await (const r of rows) {
    batch.push(r);
    if (batch.length === FTS5_BATCH) {
      write(batch);
      docs += batch.length;
      batch = [];
    }
  }
  write(batch);
  docs += batch.length;
  const insertSeconds = (performance.now() - started) / 1000;
  db.pragma('wal_checkpoint(TRUNCATE)');
  const seconds = (performance.now() - started) / 1000;
  const bytes = dirBytes(dir);
  db.close();
  return { docs, seconds, insertSeconds, bytes };
}

/**
 * The records of a JSONL file (gunzipped when it starts with the gzip magic bytes, as `trawl import`
 * reads it), line by line, as `{url, title, text}`; a record without `url` gets `import://<name>/<_id>`.
 */
export async function* jsonlRows(file) {
  const fd = fs.openSync(file, 'r');
  const magic = Buffer.alloc(2);
  fs.readSync(fd, magic, 0, 2, 0);
  fs.closeSync(fd);
  const raw = fs.createReadStream(file);
  const input = magic[0] === 0x1f && magic[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  const collection = path
    .basename(file)
    .replace(/(\.gz)?$/, '')
    .replace(/\.(jsonl|ndjson|jsonlines|json)$/, '');
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line);
    yield { url: r.url ?? `import://${collection}/${r._id}`, title: r.title ?? '', text: r.text };
  }
}

/** The baseline for "through `trawl import` of a JSONL file": reads `file` line by line into `dir`. */
export function buildFts5FromJsonl(dir, file) {
  return buildFts5(dir, jsonlRows(file));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, file, dir] = process.argv.slice(2);
  if (command !== 'import' || !file || !dir) {
    console.error('usage: node bench/fts5.mjs import FILE DIR');
    process.exit(2);
  }
  console.log(JSON.stringify(await buildFts5FromJsonl(dir, file)));
}
