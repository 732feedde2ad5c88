/**
 * The document writer's thread (started by document-writer.ts): its own connection to the database and
 * its own analysis pool, on which it runs the serving process's document writes, steps 1-3 of
 * core/documents/write-path.ts in one IMMEDIATE transaction each, in the order they arrive. A write is
 * analyzed as it arrives, while the previous one is written. better-sqlite3 is synchronous, so a
 * transaction here never holds the event loop of the thread that answers requests.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { createDocumentsRepo } from '../store/sqlite/documents.js';
import { createAnalysisPool } from '../core/search/analysis-pool.js';
import { createSearchIndex } from '../core/search/search-index.js';
import { createCodeIndex } from '../core/code/index/code-index.js';
import { createCodeVectors } from '../core/code/index/code-vectors.js';
import { codeExamples } from '../core/code/index/doc-examples.js';
import { createCodeModelLoader } from '../core/code/model/shipped-model.js';
import { withoutMarkdown, writeSteps, writeTransactionOf } from '../core/documents/write-path.js';
import type { WriterRequest, WriterReply, WriterOptions } from './document-writer.js';
import { yieldToAnswers } from '../lib/thread-priority.js';

const options = workerData as WriterOptions;
const port = parentPort!;
// writes (whose callers wait their commit anyway) take the cores the answering thread leaves; the
// analysis threads it starts inherit the priority
yieldToAnswers();
const db = new Database(options.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// log lines go to the serving thread's logger
const logger = pino({ level: 'info' }, { write: (line: string) => port.postMessage({ log: line } satisfies WriterReply) }); // prettier-ignore

const stored = createDocumentsRepo(db);
const analysis = createAnalysisPool(options.analysisThreads);
if (options.startAnalysis) analysis.start();
// no merges here: the serving thread pokes the merge worker after each commit
const index = createSearchIndex(db, stored, { analysis, cacheBytes: 0 });
const loader = createCodeModelLoader({ setting: options.codeModel, logger, provider: options.codeProvider });
const vectors = createCodeVectors({ db, loader, chunksOf: (ids) => code.hitsByIds(ids), logger });
const code = createCodeIndex(db, { vectors });
const write = writeTransactionOf(db, writeSteps(stored, index, codeExamples(code)));

const reply = (msg: WriterReply) => port.postMessage(msg);
const errorOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Writes in arrival order: each waits for the one before, its analysis started at once. */
let last: Promise<void> = Promise.resolve();

function take(msg: WriterRequest): void {
  const analyzed = index.prepare(msg.batches.flatMap((b) => withoutMarkdown(b.pages)));
  analyzed.catch(() => {}); // reported when the write's turn comes
  last = last.then(async () => {
    try {
      await analyzed;
      reply({ begin: msg.id, threadId });
      write(msg.batches, msg.also);
      reply({ done: msg.id });
    } catch (err) {
      reply({ failed: msg.id, error: errorOf(err) });
    }
  });
}

port.on('message', (msg: WriterRequest | 'close') => {
  if (msg !== 'close') return take(msg);
  // the writes already taken commit first
  void last
    .then(() => Promise.all([vectors.stop(), analysis.close()]))
    .finally(() => {
      db.close();
      port.close();
    });
});
