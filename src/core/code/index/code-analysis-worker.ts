/**
 * A code analysis thread (`code-analysis.ts`): chunks in, their terms and their texts packed in
 * deflated blocks out. Analysis and compression are most of what writing a chunk costs; this thread
 * does them for the next batch while the writing thread stores the one before.
 */
import { parentPort } from 'node:worker_threads';
import { BLOCK_CHARS, entryOf, packBlocks } from './chunk-texts.js';
import { analyzeChunk, type ChunkText } from './code-fields.js';
import type { PreparedChunk } from './code-index.js';

// nothing may reach the process's stdout (the MCP stdio stream)
process.stdout.write = () => true;

/** The prepared chunks of `chunks`, in order. */
export function prepareChunks(chunks: ChunkText[]): PreparedChunk[] {
  const prepared: PreparedChunk[] = chunks.map((c) => ({ analysis: analyzeChunk(c) }));
  const entries = chunks.map((c) => entryOf(c.code, c.doc));
  // too few for a block: the writer appends them to its newest block instead
  if (entries.reduce((n, e) => n + e.entry.length, 0) < BLOCK_CHARS) return prepared;
  const { blocks, places } = packBlocks(entries.map((e) => e.entry));
  places.forEach(({ block, at }, i) => {
    const { codeLen, docAt, docLen } = entries[i]!;
    prepared[i]!.text = { block: blocks[block]!, at, codeLen, docAt, docLen };
  });
  return prepared;
}

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
