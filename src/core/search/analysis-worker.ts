/**
 * A thread of the analysis pool (`analysis-pool.ts`): documents in, index entries out. Analysis (words,
 * stems, fields, categories, safety) is most of what indexing costs; threads do it beside the one that
 * writes to SQLite.
 */
import { parentPort } from 'node:worker_threads';
import type { DocumentRecord } from '../../store/contracts/documents.js';
import { toIndexEntry } from './index-entry.js';

// nothing may reach the process's stdout (the MCP stdio stream)
process.stdout.write = () => true;

parentPort!.on('message', ({ id, docs }: { id: number; docs: DocumentRecord[] }) => {
  try {
    const entries = docs.map(toIndexEntry);
    const buffers = entries.flatMap((e) => [e.freqs.buffer, e.positions.buffer, e.positionEnds.buffer]);
    parentPort!.postMessage({ id, entries }, buffers as ArrayBuffer[]);
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
