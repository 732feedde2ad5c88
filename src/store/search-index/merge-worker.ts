/**
 * The merge worker's thread (started by `segment-merger.ts`): its own connection to the database,
 * merging the search and code indexes' segments one step at a time, then waiting to be poked (a write
 * happened) or for the next tick. better-sqlite3 is synchronous, so merges here never hold the event
 * loop of the process that answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { createSegmentMerger } from './segment-merge.js';
import { yieldToAnswers } from '../../lib/thread-priority.js';

interface Options {
  file: string;
  tickMs: number;
  leaseMs: number;
  chunkRows: number;
}

const { file, tickMs, leaseMs, chunkRows } = workerData as Options;
// merges take the cores the answering thread leaves (nobody waits for one)
yieldToAnswers();
const db = new Database(file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const mergers = (['search', 'code'] as const).map((t) => createSegmentMerger(db, t, { leaseMs, chunkRows }));

let timer: NodeJS.Timeout | undefined;
let closing = false;
/** The last poke received: an idle report covers every poke up to it. */
let poked = 0;

function run(): void {
  clearTimeout(timer);
  if (closing) return;
  try {
    const started = Date.now();
    // a slice of work, then yield to messages (a close) before the next
    while (Date.now() - started < 200 && mergers.some((m) => m.step()));
    if (mergers.some((m) => m.step())) {
      timer = setTimeout(run, 0);
      return;
    }
    parentPort!.postMessage({ idle: poked });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err), idle: poked });
  }
  timer = setTimeout(run, tickMs);
}

// a number: a poke (write happened; its number comes back in the next idle report); 'close': stop
parentPort!.on('message', (msg: number | 'close') => {
  if (msg === 'close') {
    closing = true;
    clearTimeout(timer);
    db.close();
    parentPort!.close();
    return;
  }
  poked = Math.max(poked, msg);
  clearTimeout(timer);
  timer = setTimeout(run, 0);
});
run();
