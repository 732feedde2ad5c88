// Search at scale: an index of 103,660 documents (BEIR SciFact ×20, every copy with ~10% of its body
// words dropped by a seeded PRNG, distinct URLs), built through the store and index the server uses.
// Measures the indexing rate, the final merge, the data directory's size per document and peak RSS,
// against the SQLite FTS5 baseline of issue 23 (bench/fts5.mjs) built in the same run over the same
// documents; `trawl import` of a JSONL file of those documents against the FTS5 baseline reading the
// same file; server-side latency of `instant` and `auto` over the 300 SciFact queries; then `trawl
// serve` on that index under autocannon (10 connections, then 1; 2 s warm-up, 10 s measured) with
// /search bodies cycling the queries, with one worker process (the default) and with two.
// Usage: npm run build && node bench/search.mjs [--copies 20] [--workers 1,2] [--connections 10,1]
//          [--import-copies 4] [--no-import] [--no-rest] [--inline-writes]
// The last line is `search_instant_p50_ms=… search_instant_rps=… index_docs_per_s=… fts5_docs_per_s=…
// …` (REST figures of the largest worker count, i.e. `trawl serve` using both cores of the 2-core goal;
// `–` when skipped).
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { buildFts5, dirBytes } from './fts5.mjs';
import {
  CLI,
  HOST,
  ROOT,
  childEnv,
  fetchedDocument,
  fmt,
  freePort,
  machineLine,
  makeTmpDir,
  mdTable,
  memoryMB,
  percentile,
  ratio,
  readJsonlGz,
  readTsv,
  removeTmpDir,
  requireBuild,
  spawnTracked,
  stopChild,
  waitFor200,
} from './lib.mjs';

requireBuild();
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const COPIES = Number(opt('--copies', '20'));
const IMPORT_COPIES = Number(opt('--import-copies', '4'));
const REST = !args.includes('--no-rest');
const IMPORT = !args.includes('--no-import');
/** Section 2b writes on the thread that answers, as before the document writer (for a before/after). */
const INLINE_WRITES = args.includes('--inline-writes');
const WORKERS = opt('--workers', '1,2').split(',').map(Number);
const BATCH = Number(opt('--batch', '500'));
const DROP = 0.1; // share of body words dropped from each copy
/** Load with 10 connections (throughput; the goal's figure) and with 1 (one request at a time: latency unloaded). */
const CONNECTIONS = opt('--connections', '10,1').split(',').map(Number);
const HEADLINE_CONNECTIONS = 10;
const WARMUP_S = 2;
const DURATION_S = 10;
const NUM_RESULTS = 10;
const TYPES = ['instant', 'auto'];
const SCIFACT = path.resolve(ROOT, '..', 'shared', 'data', 'scifact');
const COMMAND = 'npm run build && node bench/search.mjs';

const dist = (p) => path.join(ROOT, 'dist', p);
const { openDatabase } = await import(dist('store/sqlite/database.js'));
const { createDocumentsRepo } = await import(dist('store/sqlite/documents.js'));
const { createSearchIndex } = await import(dist('core/search/search-index.js'));
const { localWrites } = await import(dist('core/documents/write-path.js'));
const { createAnalysisPool } = await import(dist('core/search/analysis-pool.js'));
const { startSegmentMerger } = await import(dist('store/search-index/segment-merger.js'));
const { startDocumentWriter } = await import(dist('compose/document-writer.js'));
const { retrieveLocal } = await import(dist('core/search/retrieve.js'));
const { PIPELINES } = await import(dist('core/search/pipelines.js'));

const corpus = readJsonlGz(path.join(SCIFACT, 'corpus.jsonl.gz'));
const queries = readTsv(path.join(SCIFACT, 'queries.tsv')).map((q) => q.text);

/**
 * The perturbed copies, `{k, id, url, title, text}`, from a seeded linear congruential generator that
 * starts afresh at each call: every run, and every side of a comparison, sees the same documents.
 */
function* perturbed(copies) {
  let seed = 20261123;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let k = 0; k < copies; k++) {
    for (const d of corpus) {
      const text = (d.text ?? '')
        .split(' ')
        .filter(() => random() >= DROP)
        .join(' ');
      yield { k, id: d._id, url: `https://sci${k}.example/${d._id}`, title: d.title ?? '', text };
    }
  }
}

/** Resets the process's VmHWM to its current RSS (Linux), so the next read is the peak of what follows. */
function resetPeakRss() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}
const stats = (values) => {
  const s = Float64Array.from(values).sort();
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99) };
};
const progress = (msg) => process.stderr.write(`search: ${msg}\n`);

// ---------------------------------------------------------------------------------------------------
// 1. The index

/**
 * Builds the index in `dir` the way the server writes documents: each batch analyzed in the analysis
 * pool's threads while the previous one is written (documents and index in one transaction), segments
 * merged by the merge worker; at the end the merges are awaited, then one `mergeAll`.
 */
async function build(dir) {
  const db = openDatabase(dir);
  const stored = createDocumentsRepo(db);
  const merges = startSegmentMerger(db.name);
  const analysis = createAnalysisPool();
  const index = createSearchIndex(db, stored, { merges, analysis });
  const documents = localWrites(db, stored, index);
  const now = new Date().toISOString();
  const perCopy = []; // seconds per copy, to see whether writes slow down as the index grows
  const started = performance.now();
  let n = 0;
  let t = started;
  let batch = [];
  let last = Promise.resolve();
  // as the importer does: a batch is analyzed while the previous is written, at most two in flight
  const flush = async () => {
    if (batch.length === 0) return;
    const docs = batch;
    batch = [];
    n += docs.length;
    const previous = last;
    const analyzed = documents.prepare(docs);
    last = Promise.all([previous, analyzed]).then(() => documents.writeBatches([{ pages: docs, now }]));
    await previous;
  };
  for (const d of perturbed(COPIES)) {
    batch.push(fetchedDocument({ url: d.url, title: d.title, text: d.text, contentHash: `${d.k}:${d.id}`, fetchedAt: now })); // prettier-ignore
    if (batch.length === BATCH) await flush();
    if (n + batch.length === corpus.length * (perCopy.length + 1)) {
      await flush();
      perCopy.push((performance.now() - t) / 1000);
      t = performance.now();
      progress(`indexed ${n} documents (${fmt(corpus.length / perCopy.at(-1), 0)} docs/s for copy ${perCopy.length})`);
    }
  }
  await flush();
  await last;
  const indexSeconds = (performance.now() - started) / 1000;
  const m = performance.now();
  await index.merged();
  await merges.close();
  await analysis.close();
  index.repo.mergeAll();
  index.table.noteWrite();
  const mergeSeconds = (performance.now() - m) / 1000;
  progress(`merged in ${fmt(mergeSeconds, 1)} s`);
  return { db, index, n, indexSeconds, mergeSeconds, perCopy };
}

/**
 * Bytes after a WAL checkpoint: trawl.sqlite and trawl.sqlite-wal, and every file of the data directory
 * (the -shm file included, the database being open, as on the FTS5 side). `seconds`: the checkpoint's.
 */
function databaseBytes(db, dir) {
  const t = performance.now();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const seconds = (performance.now() - t) / 1000;
  const size = (f) => (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0);
  return { main: size('trawl.sqlite'), wal: size('trawl.sqlite-wal'), all: dirBytes(dir), seconds };
}

// ---------------------------------------------------------------------------------------------------
// 1b. The FTS5 baseline, and the import path (`trawl import` of a JSONL file)

/** The FTS5 baseline over the same perturbed documents; `peakMB`: VmHWM of this process while it ran. */
async function buildBaseline(dir) {
  const reset = resetPeakRss();
  const r = await buildFts5(dir, perturbed(COPIES));
  progress(`FTS5 baseline: ${r.docs} documents in ${fmt(r.seconds, 1)} s`);
  return { ...r, peakMB: reset ? memoryMB(process.pid).hwm : NaN };
}

/** Writes the first `copies` perturbed copies as a JSONL file `trawl import` reads; returns its count. */
function writeJsonl(file, copies) {
  const fd = fs.openSync(file, 'w');
  let n = 0;
  let lines = [];
  for (const d of perturbed(copies)) {
    lines.push(JSON.stringify({ url: d.url, title: d.title, text: d.text }));
    if (lines.length === 1000) fs.writeSync(fd, `${lines.splice(0).join('\n')}\n`);
    n++;
  }
  if (lines.length > 0) fs.writeSync(fd, `${lines.join('\n')}\n`);
  fs.closeSync(fd);
  return n;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

/**
 * Each thread's CPU seconds (user + system) of a running process, by thread id, read from
 * /proc/PID/task/TID/stat into `seen` (the last reading of a thread that has ended stays there).
 */
function readThreadCpu(pid, seen) {
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seen.set(tid, (Number(f[11]) + Number(f[12])) / TICKS);
    } catch {
      // the thread ended between the listing and the read: its last reading stands
    }
  }
}

/**
 * Runs `node ARGS` as its own process: wall seconds (spawn to exit), stdout, its VmHWM and each thread's
 * CPU seconds, polled every 25 ms (`cpu.main`: the main thread; `cpu.others`: the other threads, most
 * first; a thread's last 25 ms can be missed).
 */
async function timedNode(argv) {
  const t = performance.now();
  const child = spawnTracked(process.execPath, argv, { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] }); // prettier-ignore
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
  let peakMB = NaN;
  const threads = new Map();
  const poll = setInterval(() => {
    const hwm = memoryMB(child.pid).hwm;
    if (Number.isFinite(hwm)) peakMB = Number.isFinite(peakMB) ? Math.max(peakMB, hwm) : hwm;
    readThreadCpu(child.pid, threads);
  }, 25);
  const { code } = await child.exited;
  clearInterval(poll);
  const seconds = (performance.now() - t) / 1000;
  if (code !== 0) throw new Error(`node ${argv.join(' ')} exited with ${code}`);
  const main = threads.get(String(child.pid)) ?? NaN;
  threads.delete(String(child.pid));
  const others = [...threads.values()].filter((s) => s >= 0.01).sort((a, b) => b - a);
  const total = others.reduce((n, s) => n + s, main);
  return { seconds, stdout, peakMB, cpu: { total, main, others } };
}

/** `trawl import FILE` into a fresh data directory against `node bench/fts5.mjs import FILE`. */
async function importPath(tmp) {
  const file = path.join(tmp, 'scifact-perturbed.jsonl');
  const docs = writeJsonl(file, IMPORT_COPIES);
  progress(`import: ${docs} documents in ${path.basename(file)} (${fmt(fs.statSync(file).size / 2 ** 20, 1)} MB)`);
  const trawlDir = path.join(tmp, 'trawl-data');
  const trawl = await timedNode([CLI, 'import', file, '--data-dir', trawlDir, '--json', '--progress', 'off', '--log-level', 'silent']); // prettier-ignore
  const summary = JSON.parse(trawl.stdout);
  const imported = summary.inputs.reduce((n, i) => n + i.imported, 0);
  const db = openDatabase(trawlDir); // the same state as the FTS5 side: open, WAL checkpointed
  db.pragma('wal_checkpoint(TRUNCATE)');
  const trawlBytes = dirBytes(trawlDir);
  db.close();
  progress(`import: trawl import ${imported} documents in ${fmt(trawl.seconds, 1)} s`);
  const ftsDir = path.join(tmp, 'fts5-data');
  const fts = await timedNode([path.join(ROOT, 'bench', 'fts5.mjs'), 'import', file, ftsDir]);
  const ftsOut = JSON.parse(fts.stdout);
  progress(`import: FTS5 ${ftsOut.docs} documents in ${fmt(fts.seconds, 1)} s`);
  return {
    docs,
    fileBytes: fs.statSync(file).size,
    trawl: { docs: imported, seconds: trawl.seconds, inner: summary.elapsedMs / 1000, bytes: trawlBytes, peakMB: trawl.peakMB, cpu: trawl.cpu }, // prettier-ignore
    fts5: { docs: ftsOut.docs, seconds: fts.seconds, inner: ftsOut.seconds, bytes: ftsOut.bytes, peakMB: fts.peakMB, cpu: fts.cpu }, // prettier-ignore
    machine: machineLine(),
  };
}

// ---------------------------------------------------------------------------------------------------
// 2. Server-side latency, the index in this process

/**
 * Each way of ranking runs the 300 queries twice: the first pass starts with an empty postings cache
 * (as after a write or a restart), the second is warm (what a busy server sees). Reported: the warm
 * pass's percentiles and the cold pass's median.
 */
function serverSide(index) {
  const ways = [
    {
      label: '`instant`: rarest 8 terms, no proximity, limit 10',
      run: (q) => index.search(q, { limit: NUM_RESULTS, maxTerms: 8, proximity: false }),
    },
    {
      label: `\`instant\` as \`/search\` runs it (retrieveLocal, numResults ${NUM_RESULTS})`,
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.instant, undefined, NUM_RESULTS),
    },
    {
      label: `\`auto\` as \`/search\` runs it: every term, the best 100 re-ranked by proximity (numResults ${NUM_RESULTS})`,
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.auto, undefined, NUM_RESULTS),
    },
    {
      label: '`auto` fused with other lists (limit 100, as with providers or embeddings)',
      run: (q) => retrieveLocal(index, q, undefined, PIPELINES.auto),
    },
  ];
  return ways.map((way) => {
    index.table.noteWrite(); // a new generation: the postings cache starts empty
    const passes = [0, 1].map(() =>
      queries.map((q) => {
        const t = performance.now();
        way.run(q);
        return performance.now() - t;
      }),
    );
    const cold = stats(passes[0]);
    const warm = stats(passes[1]);
    progress(`server-side ${way.label}: p50 ${fmt(warm.p50, 2)} ms`);
    return { label: way.label, cold, warm };
  });
}

// ---------------------------------------------------------------------------------------------------
// 2b. Incremental writes into the built index, merges in the background

/** Documents added, then replaced, then deleted, in the incremental run. */
const INCREMENTAL = 1000;
const MARK = 'zqxmark';

/**
 * On the built index, as the server keeps it (analysis pool, merge worker, the document writer's thread
 * running each write's transaction on its own connection): adds 1,000 new documents,
 * replaces 1,000 existing ones, deletes the 1,000 added, each timed from the call until a search finds
 * (or no longer finds) a sample of them by a marker word in their titles; meanwhile `instant` queries
 * run every 5 ms between the writes and until the merges the writes caused are done, each timed.
 */
async function incremental(built) {
  const { db } = built;
  const stored = createDocumentsRepo(db);
  const merges = startSegmentMerger(db.name);
  const analysis = createAnalysisPool();
  const index = createSearchIndex(db, stored, { merges, analysis });
  const writer = INLINE_WRITES ? undefined : startDocumentWriter({ file: db.name, codeModel: 'off', codeProvider: false }); // prettier-ignore
  const documents = localWrites(db, stored, index, undefined, writer);
  const instant = (q, limit = NUM_RESULTS) => index.search(q, { limit, maxTerms: 8, proximity: false });
  for (const q of queries) instant(q); // warm, as a running server is
  const now = new Date().toISOString();
  const source = corpus.slice(0, INCREMENTAL);
  const docsOf = (tag, urlOf) =>
    source.map(
      (d, i) =>
      fetchedDocument({ url: urlOf(d, i), title: `${d.title ?? ''} ${MARK}${tag}${i}`, text: d.text ?? '', contentHash: `${tag}:${i}`, fetchedAt: now }), // prettier-ignore
    );
  const sample = Array.from({ length: 20 }, (_, k) => Math.floor((k * INCREMENTAL) / 20));
  const finds = (tag, urlOf) =>
    sample.every((i) => {
      const ids = instant(`${MARK}${tag}${i}`, 3).map((h) => h.id);
      return [...index.urls(ids).values()].includes(urlOf(source[i], i));
    });
  const latencies = [];
  const asked = []; // the query of each latency
  const afterChange = []; // whether each query was the first to read a change (it loads what changed)
  const writeMs = []; // each batch's write, call → committed
  const heldMs = []; // what the call holds the thread that answers queries (the transaction is elsewhere)
  let stop = false;
  let qi = 0;
  // each query from when it was due (5 ms after the previous answer) to its answer: a query due while the
  // thread is held waits for it; first for 2 s before any write (idle), then while writing and merging
  const waited = [];
  const waitedIdle = [];
  let writing = false;
  const loop = (async () => {
    let due = performance.now();
    while (!stop) {
      const t = performance.now();
      const q = qi++ % queries.length;
      const before = index.table.generation;
      instant(queries[q]);
      if (writing) {
        asked.push(q);
        latencies.push(performance.now() - t);
        afterChange.push(index.table.generation !== before); // the first query to see a commit or a merge
      }
      (writing ? waited : waitedIdle).push(performance.now() - due); // one due while the thread was held waited
      due = performance.now() + 5;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  /** Runs `write`, then waits until `ready()`: seconds from the call. */
  const timed = async (write, ready) => {
    const t = performance.now();
    await write();
    while (!ready()) await new Promise((resolve) => setTimeout(resolve, 1));
    return (performance.now() - t) / 1000;
  };
  const write = async (docs) => {
    for (let i = 0; i < docs.length; i += BATCH) {
      const batch = docs.slice(i, i + BATCH);
      await documents.prepare(batch);
      const t = performance.now();
      const written = documents.writeBatches([{ pages: batch, now }]);
      heldMs.push(performance.now() - t);
      await written;
      writeMs.push(performance.now() - t);
    }
  };
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the idle phase
  writing = true;
  const addedUrl = (d) => `https://new.example/${d._id}`;
  const replacedUrl = (d) => `https://sci0.example/${d._id}`;
  const added = docsOf('a', addedUrl);
  const addSeconds = await timed(
    () => write(added),
    () => finds('a', addedUrl),
  );
  const replaceSeconds = await timed(
    () => write(docsOf('r', replacedUrl)),
    () => finds('r', replacedUrl),
  );
  const deleteSeconds = await timed(
    async () => index.remove(added.map((d) => d.url)),
    () => sample.every((i) => instant(`${MARK}a${i}`, 3).length === 0),
  );
  const mergeStart = performance.now();
  await index.merged();
  const mergeSeconds = (performance.now() - mergeStart) / 1000;
  stop = true;
  await loop;
  // the same queries again, nothing being written or merged: what each costs on its own (best of 3)
  const alone = new Map();
  for (const i of new Set(asked)) {
    let best = Infinity;
    for (let r = 0; r < 3; r++) {
      const t = performance.now();
      instant(queries[i]);
      best = Math.min(best, performance.now() - t);
    }
    alone.set(i, best);
  }
  const over = latencies.map((ms, k) => ms - alone.get(asked[k]));
  await writer?.close();
  await merges.close();
  await analysis.close();
  const idle = stats(asked.map((k) => alone.get(k))); // the same queries, weighted alike
  const busy = stats(latencies);
  const due = { idle: stats(waitedIdle), writing: stats(waited) };
  progress(`incremental: instant p99 from when due: idle ${fmt(due.idle.p99, 2)} ms, while writing ${fmt(due.writing.p99, 2)} ms (+${fmt(due.writing.p99 - due.idle.p99, 2)} ms)`); // prettier-ignore
  const firsts = stats(latencies.filter((_, k) => afterChange[k]));
  const others = stats(latencies.filter((_, k) => !afterChange[k]));
  progress(`incremental: instant p99 idle ${fmt(idle.p99, 2)} ms, while writing ${fmt(busy.p99, 2)} ms (+${fmt(busy.p99 - idle.p99, 2)} ms)`); // prettier-ignore
  progress(`incremental: add ${fmt(addSeconds, 2)} s, replace ${fmt(replaceSeconds, 2)} s, delete ${fmt(deleteSeconds, 3)} s; ${latencies.length} queries meanwhile, max ${fmt(Math.max(...latencies), 1)} ms, at most ${fmt(Math.max(...over), 1)} ms over the same query alone`); // prettier-ignore
  return {
    addSeconds,
    replaceSeconds,
    deleteSeconds,
    mergeSeconds,
    queries: busy,
    idle,
    due,
    firsts,
    others,
    max: Math.max(...latencies),
    maxAlone: Math.max(...alone.values()),
    added: { ...stats(over), max: Math.max(...over) },
    writes: { ...stats(writeMs), max: Math.max(...writeMs) },
    held: { ...stats(heldMs), max: Math.max(...heldMs) },
  };
}

function incrementalSection(inc) {
  const q = inc.queries;
  return [
    `### Incremental writes into the ${COPIES === 200 ? 'million-document' : 'built'} index, merges in the background`,
    '',
    mdTable(
      ['figure', 'result', 'goal'],
      [
        [
          `add ${INCREMENTAL} new documents: call → searchable, s`,
          fmt(inc.addSeconds, 2),
          goal(inc.addSeconds <= 2, '≤ 2 s'),
        ],
        [`replace ${INCREMENTAL} documents: call → searchable, s`, fmt(inc.replaceSeconds, 2), goal(inc.replaceSeconds <= 2, '≤ 2 s')], // prettier-ignore
        [`delete ${INCREMENTAL} documents: call → gone from results, s`, fmt(inc.deleteSeconds, 3), goal(inc.deleteSeconds <= 0.1, 'at once')], // prettier-ignore
        ['background merges after the writes, s', fmt(inc.mergeSeconds, 1), ''],
        [`\`instant\` queries meanwhile (${q.n}): p50 / p99 / max ms`, `${fmt(q.p50, 2)} / ${fmt(q.p99, 2)} / ${fmt(inc.max, 1)}`, ''], // prettier-ignore
        ['the same queries alone, nothing written or merged: max ms', fmt(inc.maxAlone, 1), ''],
        ['`instant` p99: idle (the queries alone) / while writing / difference, ms', `${fmt(inc.idle.p99, 2)} / ${fmt(q.p99, 2)} / ${fmt(q.p99 - inc.idle.p99, 2)}`, goal(q.p99 - inc.idle.p99 <= 10, 'within 10 ms')], // prettier-ignore
        ['`instant` from when due (its wait for the thread included): p99 idle (2 s before the writes, n) / while writing (n) / difference, ms', `${fmt(inc.due.idle.p99, 2)} (${inc.due.idle.n}) / ${fmt(inc.due.writing.p99, 2)} (${inc.due.writing.n}) / ${fmt(inc.due.writing.p99 - inc.due.idle.p99, 2)}`, goal(inc.due.writing.p99 - inc.due.idle.p99 <= 10, 'within 10 ms')], // prettier-ignore
        ['`instant` p99 while writing: the first query to read a commit (n) / the others (n), ms', `${fmt(inc.firsts.p99, 2)} (${inc.firsts.n}) / ${fmt(inc.others.p99, 2)} (${inc.others.n})`, ''], // prettier-ignore
        ['time a query took beyond its own (writes, merges): p99 / max ms', `${fmt(inc.added.p99, 2)} / ${fmt(inc.added.max, 1)}`, goal(inc.added.max <= 50, 'no query held > 50 ms')], // prettier-ignore
        [`a batch of ${BATCH} written, call → committed: p50 / max ms`, `${fmt(inc.writes.p50, 1)} / ${fmt(inc.writes.max, 1)}`, ''], // prettier-ignore
        [`a batch of ${BATCH}: what the call holds the thread that answers: p50 / max ms`, `${fmt(inc.held.p50, 1)} / ${fmt(inc.held.max, 1)}`, ''], // prettier-ignore
      ],
    ),
    '',
    (INLINE_WRITES
      ? `Writes on the thread that answers (\`--inline-writes\`: as before the document writer; analysis pool, batches of ${BATCH}, documents and index in one transaction), `
      : `Writes as the server makes them (batches of ${BATCH} analyzed and written, documents and index in one transaction, on the document writer's thread with its own connection and analysis pool), `) +
      'the merge worker poked after each; "searchable" is when `instant` searches for ' +
      'marker words in the titles of 20 sampled documents all find them. Queries run every 5 ms on the ' +
      'answering thread from the first write until the merge worker is idle; the first query after each ' +
      'write or merge reads what changed. Each query is then run again alone (best of 3): the goal ' +
      'bounds what writes and merges add to a query, not what a query with common words costs anyway. ' +
      (INLINE_WRITES
        ? 'A batch is written on the thread that answers, so a query arriving meanwhile waits for it.'
        : 'The thread that answers only hands a batch over and learns of the commit.'),
  ];
}

// ---------------------------------------------------------------------------------------------------
// 3. REST, `trawl serve` on the built index

/** One request outside the load run: the status and how many results came back. */
function probe(port, key, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        method: 'POST',
        path: '/search',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.setTimeout(10000, () => req.destroy(new Error('probe timed out')));
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** autocannon posting /search bodies that cycle through the queries; `samples` gets every response's ms. */
function cannon(port, key, type, connections, durationS, samples) {
  let i = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://${HOST}:${port}/search`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        connections,
        pipelining: 1,
        duration: durationS,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ query: queries[i++ % queries.length], type, numResults: NUM_RESULTS }),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (samples) instance.on('response', (_c, _s, _b, ms) => samples.push(ms));
  });
}

/** The pids of a process and its children (the cluster workers). */
function processTree(pid) {
  const file = `/proc/${pid}/task/${pid}/children`;
  const kids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  return [pid, ...kids];
}

/** VmRSS of the server, its workers included, in MB. */
const rssOfTree = (pid) => processTree(pid).reduce((sum, p) => sum + (memoryMB(p).rss || 0), 0);

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) used so far by the server and its workers, in ms (Linux /proc). */
function cpuMsOfTree(pid) {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      /* gone */
    }
  }
  return (ticks * 1000) / CLK_TCK;
}

async function rest(dir, key, workers) {
  const port = await freePort();
  const child = spawnTracked(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      String(port),
      '--data-dir',
      dir,
      '--log-level',
      'silent',
      '--create-first-key',
      'false',
      '--workers',
      String(workers),
    ],
    { stdio: 'ignore', cwd: ROOT, env: childEnv() },
  );
  const rows = [];
  try {
    const t = performance.now();
    await waitFor200(port, '/health', { intervalMs: 20, timeoutMs: 30000, child });
    const startMs = performance.now() - t;
    // ready to answer: the first search loads the index's per-document facts
    const first = await probe(port, key, { query: queries[1], type: 'instant', numResults: NUM_RESULTS });
    const readyMs = performance.now() - t;
    if (first.status !== 200) throw new Error(`first search: ${first.status}: ${first.text.slice(0, 300)}`);
    progress(`${workers} worker(s): /health after ${fmt(startMs, 0)} ms, first /search answered after ${fmt(readyMs, 0)} ms`); // prettier-ignore
    for (const type of TYPES) {
      const check = await probe(port, key, { query: queries[0], type, numResults: NUM_RESULTS });
      const results = check.status === 200 ? (JSON.parse(check.text).results ?? []).length : 0;
      if (check.status !== 200 || results === 0) {
        throw new Error(`${type}: expected 200 with results, got ${check.status}: ${check.text.slice(0, 300)}`);
      }
      for (const connections of CONNECTIONS) {
        progress(`REST ${type}, ${workers} worker(s), ${connections} connection(s): warm-up ${WARMUP_S} s, then ${DURATION_S} s`); // prettier-ignore
        await cannon(port, key, type, connections, WARMUP_S);
        const samples = [];
        const cpuBefore = cpuMsOfTree(child.pid);
        const r = await cannon(port, key, type, connections, DURATION_S, samples);
        const cpuMs = cpuMsOfTree(child.pid) - cpuBefore;
        const s = stats(samples);
        rows.push({
          workers,
          type,
          connections,
          rps: r.requests.average,
          p50: s.p50,
          p99: s.p99,
          total: r.requests.total,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          cpuPerReq: r.requests.total ? cpuMs / r.requests.total : NaN,
          rss: rssOfTree(child.pid),
          startMs,
          readyMs,
        });
      }
    }
  } finally {
    await stopChild(child, 5000);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------

/** Everything measured, in the order that keeps one side's memory out of the other's peak. */
async function measure() {
  // FTS5 first: it leaves little behind in this process, while the Trawl index stays open for the
  // latency runs, so each side's peak RSS is its own
  const g = performance.now();
  for (const d of perturbed(COPIES)) if (d.text === undefined) throw new Error('no text'); // the stream alone
  const generateSeconds = (performance.now() - g) / 1000;
  const ftsDir = makeTmpDir('trawl-bench-fts5-');
  const ftsRssBefore = memoryMB(process.pid).rss;
  const fts5 = await buildBaseline(ftsDir);
  removeTmpDir(ftsDir);

  const dir = makeTmpDir('trawl-bench-search-');
  const rssBefore = memoryMB(process.pid).rss;
  const resetWorks = resetPeakRss();
  const built = await build(dir);
  const bytes = databaseBytes(built.db, dir);
  const rssBuild = memoryMB(process.pid);
  const side = serverSide(built.index);
  const inc = await incremental(built);
  built.db.close();
  let imported = null;
  if (IMPORT) {
    const tmp = makeTmpDir('trawl-bench-import-');
    imported = await importPath(tmp);
    removeTmpDir(tmp);
  }

  const restRows = [];
  if (REST) {
    const key = execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'bench', '--data-dir', dir], {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'ignore'],
      encoding: 'utf8',
      timeout: 30000,
    }).trim();
    if (!key) throw new Error('keys create printed no key');
    for (const workers of WORKERS) restRows.push(...(await rest(dir, key, workers)));
  }
  removeTmpDir(dir);
  const peaks = {
    trawl: { peak: resetWorks ? rssBuild.hwm : NaN, before: rssBefore },
    fts5: { peak: fts5.peakMB, before: ftsRssBefore },
  };
  return { built, bytes, rssBuild, side, inc, fts5, imported, restRows, peaks, generateSeconds };
}

const goal = (met, text) => `${text}: ${met ? 'met' : 'not met'}`;
const mb = (bytes) => fmt(bytes / 2 ** 20, 1);

/** The `### Index: Trawl vs FTS5` section. */
function comparisonSection(m) {
  const { built, bytes, fts5, peaks } = m;
  const writes = built.n / built.indexSeconds;
  const checkpointed = built.n / (built.indexSeconds + built.mergeSeconds + bytes.seconds);
  const ftsWrites = fts5.docs / fts5.insertSeconds;
  const ftsRate = fts5.docs / fts5.seconds;
  const perDoc = bytes.all / built.n;
  const ftsPerDoc = fts5.bytes / fts5.docs;
  const peak = (p) => `${fmt(p.peak, 0)} (+${fmt(p.peak - p.before, 0)})`;
  return [
    '### Index: Trawl vs FTS5',
    '',
    mdTable(
      ['figure', 'Trawl', 'FTS5', 'ratio (Trawl/FTS5)', 'goal'],
      [
        ['documents', String(built.n), String(fts5.docs), '', ''],
        ['ingest docs/s, writes only', fmt(writes, 0), fmt(ftsWrites, 0), ratio(writes, ftsWrites), ''],
        ['ingest docs/s to a checkpointed index', fmt(checkpointed, 0), fmt(ftsRate, 0), ratio(checkpointed, ftsRate), goal(checkpointed / ftsRate >= 0.5, '≥ 0.50×')], // prettier-ignore
        ['bytes per document, every file of the data dir', fmt(perDoc, 0), fmt(ftsPerDoc, 0), ratio(perDoc, ftsPerDoc), goal(perDoc / ftsPerDoc <= 1.2, '≤ 1.20×')], // prettier-ignore
        ['data dir MB', mb(bytes.all), mb(fts5.bytes), ratio(bytes.all, fts5.bytes), ''],
        ['peak RSS MB during ingest (growth)', peak(peaks.trawl), peak(peaks.fts5), ratio(peaks.trawl.peak, peaks.fts5.peak), ''], // prettier-ignore
        ['LanceDB, quoted (SciFact×4, measured earlier, not run here)', '', '', '', '~1,050 B/doc (1,039–1,052); 5.0–5.2k docs/s'], // prettier-ignore
      ],
    ),
    '',
    `FTS5 (bench/fts5.mjs): the same documents (the same seeded stream) into \`docs (url, title, text)\` and an ` +
      'external-content FTS5 table over title and text (`porter unicode61`, kept in step by an AFTER INSERT ' +
      'trigger, as the SQLite documentation shows), Trawl’s pragmas (WAL, synchronous=NORMAL, busy_timeout, ' +
      'foreign_keys), 1,000 documents per transaction, then `PRAGMA wal_checkpoint(TRUNCATE)`. Trawl to a ' +
      'checkpointed index = writes + final `mergeAll` + the same checkpoint; FTS5 = inserts + checkpoint. ' +
      'Bytes: every file of the data directory after the checkpoint, the database still open (the 32 KB ' +
      '-shm file counted on both sides). Peak RSS: VmHWM of this bench process, reset through ' +
      '`/proc/self/clear_refs` before each build (in parentheses, the growth over the RSS at that moment; ' +
      'the bench holds the corpus on both sides; the FTS5 build runs first). Both sides’ times include ' +
      `generating the perturbed documents, ${fmt(m.generateSeconds, 2)} s for the whole stream alone.`,
  ];
}

/** A process's CPU seconds as `main X s + others [a, b, …]`. */
const threadList = (cpu) => `${fmt(cpu.main, 2)} s, others [${cpu.others.map((x) => fmt(x, 2)).join(', ')}] s`;

/** The `### Import of a JSONL file` section. */
function importSection(im) {
  const rate = (s) => s.docs / s.seconds;
  const perDoc = (s) => s.bytes / s.docs;
  const { trawl, fts5 } = im;
  return [
    `### Import of a JSONL file: \`trawl import\` vs FTS5 (${im.docs} documents, ${mb(im.fileBytes)} MB)`,
    '',
    mdTable(
      ['figure', 'trawl import', 'FTS5', 'ratio (Trawl/FTS5)', 'goal'],
      [
        ['documents', String(trawl.docs), String(fts5.docs), '', ''],
        ['wall s, spawn to exit', fmt(trawl.seconds, 2), fmt(fts5.seconds, 2), ratio(trawl.seconds, fts5.seconds), ''],
        ['docs/s (wall)', fmt(rate(trawl), 0), fmt(rate(fts5), 0), ratio(rate(trawl), rate(fts5)), goal(rate(trawl) / rate(fts5) >= 0.5, '≥ 0.50×')], // prettier-ignore
        ['s inside the process (import summary / build)', fmt(trawl.inner, 2), fmt(fts5.inner, 2), ratio(trawl.inner, fts5.inner), ''], // prettier-ignore
        ['CPU s, every thread (user + system)', fmt(trawl.cpu.total, 2), fmt(fts5.cpu.total, 2), ratio(trawl.cpu.total, fts5.cpu.total), ''], // prettier-ignore
        ['docs per CPU s', fmt(trawl.docs / trawl.cpu.total, 0), fmt(fts5.docs / fts5.cpu.total, 0), ratio(trawl.docs / trawl.cpu.total, fts5.docs / fts5.cpu.total), ''], // prettier-ignore
        ['bytes per document, every file of the data dir', fmt(perDoc(trawl), 0), fmt(perDoc(fts5), 0), ratio(perDoc(trawl), perDoc(fts5)), goal(perDoc(trawl) / perDoc(fts5) <= 1.2, '≤ 1.20×')], // prettier-ignore
        ['process peak RSS MB (VmHWM, polled)', fmt(trawl.peakMB, 0), fmt(fts5.peakMB, 0), ratio(trawl.peakMB, fts5.peakMB), ''], // prettier-ignore
      ],
    ),
    '',
    `The first ${IMPORT_COPIES} perturbed copies written as \`{url, title, text}\` lines. Trawl: ` +
      '`trawl import FILE --data-dir DIR --json --progress off --log-level silent` (its default `--batch` ' +
      '4,096, as users run it, with every core analyzing); FTS5: `node bench/fts5.mjs import FILE DIR` (line by line, 1,000 per ' +
      'transaction, checkpoint; 4,096 per transaction takes FTS5 the same time). Each in its own process, timed from spawn to exit. Trawl’s data directory ' +
      '(trawl.sqlite, cache.sqlite, secret.key, all of it) measured after opening it and ' +
      '`PRAGMA wal_checkpoint(TRUNCATE)`, as the FTS5 side is measured.',
    '',
    `CPU seconds per thread (/proc/PID/task/*/stat, polled every 25 ms): trawl import main ${threadList(trawl.cpu)}; ` +
      `FTS5 main ${threadList(fts5.cpu)}. In \`trawl import\` the largest others are the analysis threads (one ` +
      'per core), then the segment-merge thread, then V8’s helper threads (garbage collection, compilation). ' +
      `Machine at the end of the import runs: ${im.machine}.`,
  ];
}

function serverSideSection(side) {
  return [
    `### Server-side latency, ${queries.length} SciFact queries, index in this process (ms)`,
    '',
    mdTable(
      ['ranking', 'p50', 'p90', 'p99', 'cold p50', 'cold p99'],
      side.map((r) => [
        r.label,
        fmt(r.warm.p50, 2),
        fmt(r.warm.p90, 2),
        fmt(r.warm.p99, 2),
        fmt(r.cold.p50, 2),
        fmt(r.cold.p99, 2),
      ]),
    ),
    '',
    'Warm: second pass over the queries; cold: first pass after the postings cache was emptied.',
  ];
}

function restSection(restRows, headline) {
  return [
    `### REST \`POST /search\` under autocannon (${CONNECTIONS.join(' and ')} connections, ${WARMUP_S} s warm-up, ${DURATION_S} s measured)`,
    '',
    mdTable(
      ['workers', 'type', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'server CPU ms/req', 'RSS MB'], // prettier-ignore
      restRows.map((r) => [
        String(r.workers),
        r.type,
        String(r.connections),
        fmt(r.rps, 0),
        fmt(r.p50, 2),
        fmt(r.p99, 2),
        String(r.total),
        String(r.non2xx),
        String(r.errors),
        fmt(r.cpuPerReq, 2),
        fmt(r.rss, 0),
      ]),
    ),
    '',
    `Bodies \`{query, type, numResults: ${NUM_RESULTS}}\` cycling through the ${queries.length} queries, no web ` +
      'providers configured (so `auto` is local). p50/p99 from every response; server CPU (user + system, ' +
      'workers included, from /proc) over the measured run divided by its requests; RSS is VmRSS of the ' +
      'server and its workers right after the run. Start → first /health 200: ' +
      WORKERS.map((w) => {
        const row = restRows.find((r) => r.workers === w);
        return `${fmt(row.startMs, 0)} ms, first \`/search\` answered after ${fmt(row.readyMs, 0)} ms (${w} worker(s))`;
      }).join('; ') +
      '.',
    '',
    `Goal for \`instant\` end to end: p50 ≤ 10 ms and ≥ 500 req/s on 2 cores: ` +
      `${headline.p50 <= 10 && headline.rps >= 500 ? 'met' : 'not met'} ` +
      `(${fmt(headline.rps, 0)} req/s, p50 ${fmt(headline.p50, 2)} ms with ${headline.workers} worker(s) and ` +
      `${headline.connections} connections). With 1 connection each request is alone on the server: its p50 ` +
      'is the latency a caller sees when the server is not saturated.',
  ];
}

async function main() {
  const started = performance.now();
  const load = machineLine();
  const m = await measure();
  const { built, bytes, rssBuild, fts5, imported, restRows } = m;
  const rate = built.n / built.indexSeconds;
  const checkpointed = built.n / (built.indexSeconds + built.mergeSeconds + bytes.seconds);
  const copyRate = (s) => fmt(corpus.length / s, 0);
  const headline =
    restRows.filter((r) => r.type === 'instant' && r.connections === HEADLINE_CONNECTIONS).at(-1) ??
    restRows.filter((r) => r.type === 'instant').at(-1);
  const keys = {
    search_instant_p50_ms: fmt(headline?.p50, 2),
    search_instant_rps: fmt(headline?.rps, 0),
    index_docs_per_s: fmt(rate, 0),
    index_checkpointed_docs_per_s: fmt(checkpointed, 0),
    fts5_docs_per_s: fmt(fts5.docs / fts5.seconds, 0),
    index_bytes_per_doc: fmt(bytes.all / built.n, 0),
    fts5_bytes_per_doc: fmt(fts5.bytes / fts5.docs, 0),
    index_peak_rss_mb: fmt(m.peaks.trawl.peak, 0),
    fts5_peak_rss_mb: fmt(m.peaks.fts5.peak, 0),
    import_docs_per_s: fmt(imported ? imported.trawl.docs / imported.trawl.seconds : NaN, 0),
    fts5_import_docs_per_s: fmt(imported ? imported.fts5.docs / imported.fts5.seconds : NaN, 0),
    import_cpu_s: fmt(imported ? imported.trawl.cpu.total : NaN, 2),
    fts5_import_cpu_s: fmt(imported ? imported.fts5.cpu.total : NaN, 2),
    import_bytes_per_doc: fmt(imported ? imported.trawl.bytes / imported.trawl.docs : NaN, 0),
    fts5_import_bytes_per_doc: fmt(imported ? imported.fts5.bytes / imported.fts5.docs : NaN, 0),
    incremental_add_s: fmt(m.inc.addSeconds, 2),
    incremental_replace_s: fmt(m.inc.replaceSeconds, 2),
    incremental_query_max_ms: fmt(m.inc.max, 1),
    incremental_query_added_max_ms: fmt(m.inc.added.max, 1),
    incremental_instant_p99_idle_ms: fmt(m.inc.idle.p99, 2),
    incremental_instant_p99_writing_ms: fmt(m.inc.queries.p99, 2),
    incremental_instant_due_p99_idle_ms: fmt(m.inc.due.idle.p99, 2),
    incremental_instant_due_p99_writing_ms: fmt(m.inc.due.writing.p99, 2),
  };
  const lines = [
    '## Search at scale (bench/search.mjs)',
    '',
    load,
    '',
    `Command: \`${COMMAND}${args.length ? ` ${args.join(' ')}` : ''}\`. Corpus: BEIR SciFact (${corpus.length} documents) ×${COPIES}, every copy with ` + // prettier-ignore
      `${DROP * 100}% of its body words dropped by a seeded PRNG, URLs \`https://sci<k>.example/<id>\`; ` +
      `written through \`localWrites(…).upsertMany\` in batches of ${BATCH} (documents and index in one ` +
      'transaction, as the server writes them), then one `mergeAll`.',
    '',
    '### Index',
    '',
    mdTable(
      [
        'documents',
        'indexing docs/s (wall)',
        'first / last copy docs/s',
        'final merge s',
        'database B/doc',
        'database MB (main + WAL)',
        'bench RSS MB after build (peak)',
      ],
      [
        [
          String(built.n),
          fmt(rate, 0),
          `${copyRate(built.perCopy[0])} / ${copyRate(built.perCopy.at(-1))}`,
          fmt(built.mergeSeconds, 1),
          fmt((bytes.main + bytes.wal) / built.n, 0),
          `${fmt(bytes.main / 2 ** 20, 1)} + ${fmt(bytes.wal / 2 ** 20, 1)}`,
          `${fmt(rssBuild.rss, 0)} (${fmt(rssBuild.hwm, 0)})`,
        ],
      ],
    ),
    '',
    'Database size after `PRAGMA wal_checkpoint(TRUNCATE)`. The bench process also holds the corpus and ' +
      'the query strings.',
    '',
    ...comparisonSection(m),
    '',
    ...(imported ? [...importSection(imported), ''] : ['(import path skipped: `--no-import`)', '']),
    ...serverSideSection(m.side),
    '',
    ...incrementalSection(m.inc),
    '',
    ...(headline ? restSection(restRows, headline) : ['(REST part skipped: `--no-rest`)']),
    '',
    `(took ${fmt((performance.now() - started) / 1000, 0)} s)`,
    '',
    Object.entries(keys)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
  ];
  console.log(lines.join('\n'));
}

await main();
process.exit(0);
