/**
 * A code analysis thread (`code-analysis.ts`): chunks in, their terms and their texts packed in
 * deflated blocks out. Analysis and compression are most of what writing a chunk costs; this thread
 * does them for the next batch while the writing thread stores the one before.
 */
import { parentPort } from 'node:worker_threads';
import { prepareChunks } from './code-analysis.js';
import type { ChunkText } from './code-fields.js';

// nothing may reach the process's stdout (the MCP stdio stream)
process.stdout.write = () => true;

parentPort?.on('message', ({ id, chunks }: { id: number; chunks: ChunkText[] }) => {
  try {
    const prepared = prepareChunks(chunks);
    // handed over, not copied: each in a buffer of its own (zlib's output may share one)
    const buffers = new Set<ArrayBuffer>();
    const own = new Set<object>();
    for (const p of prepared) {
      buffers.add(p.analysis.freqs.buffer as ArrayBuffer);
      const block = p.text?.block;
      if (block && !own.has(block)) {
        own.add(block);
        block.data = new Uint8Array(block.data);
        buffers.add(block.data.buffer as ArrayBuffer);
      }
    }
    parentPort!.postMessage({ id, prepared }, [...buffers]);
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
