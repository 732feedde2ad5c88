/**
 * The document writer's thread (started by document-writer.ts): its own connection to the database, on
 * which it runs the serving process's document writes, steps 1-3 of core/documents/write-path.ts in one
 * IMMEDIATE transaction each, in the order they arrive. better-sqlite3 is synchronous, so a transaction
 * here never holds the event loop of the thread that answers requests.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { createDocumentsRepo } from '../store/sqlite/documents.js';
import { createSearchIndex } from '../core/search/search-index.js';
import { createCodeIndex } from '../core/code/index/code-index.js';
import { createCodeVectors } from '../core/code/index/code-vectors.js';
import { codeExamples } from '../core/code/index/doc-examples.js';
import { createCodeModelLoader } from '../core/code/model/shipped-model.js';
import { writeSteps, writeTransactionOf } from '../core/documents/write-path.js';
import type { WriterRequest, WriterReply, WriterOptions } from './document-writer.js';

const options = workerData as WriterOptions;
const port = parentPort!;
const db = new Database(options.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// log lines go to the serving thread's logger
const logger = pino({ level: 'info' }, { write: (line: string) => port.postMessage({ log: line } satisfies WriterReply) }); // prettier-ignore

const stored = createDocumentsRepo(db);
// no merges here: the serving thread pokes the merge worker after each commit
const index = createSearchIndex(db, stored, { cacheBytes: 0 });
const loader = createCodeModelLoader({ setting: options.codeModel, logger, provider: options.codeProvider });
const vectors = createCodeVectors({ db, loader, chunksOf: (ids) => code.hitsByIds(ids), logger });
const code = createCodeIndex(db, { vectors });
const write = writeTransactionOf(db, writeSteps(stored, index, codeExamples(code)));

port.on('message', (msg: WriterRequest | 'close') => {
  if (msg === 'close') {
    void vectors.stop().finally(() => {
      db.close();
      port.close();
    });
    return;
  }
  port.postMessage({ begin: msg.id, threadId } satisfies WriterReply);
  try {
    index.offer(msg.entries);
    write(msg.batches, msg.also);
    port.postMessage({ done: msg.id } satisfies WriterReply);
  } catch (err) {
    port.postMessage({ failed: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies WriterReply);
  }
});
