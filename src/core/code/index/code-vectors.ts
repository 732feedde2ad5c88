/**
 * Code chunks' vectors of the code model, beside the lexical index in this machine's SQLite: a chunk
 * gets its vector in the transaction that writes it (every write of the code index: `trawl index`,
 * `trawl import --code`, pages' examples, a replica's code follower), and loses it with it. Chunks
 * indexed before the model was loaded, or by another version of it, are embedded by a background job
 * in rounds once the model loads; then other versions are dropped. docs/code-context.md.
 */
import type { Logger } from '../../../lib/logger.js';
import { createCodeVectorsRepo } from '../../../store/sqlite/code-vectors.js';
import type { CodeVectorHit, CodeVectorsRepo } from '../../../store/contracts/code-vectors.js';
import { writeTransaction, type Db } from '../../../store/sqlite/database.js';
import type { ChunkForModel, CodeModel } from '../model/code-model.js';
import type { CodeModelLoader } from '../model/shipped-model.js';

/** What the code index calls inside its write transactions, so vectors stay beside their chunks. */
export interface ChunkVectorsHook {
  /** Chunks just written under these index ids. */
  written(ids: number[], chunks: ChunkForModel[]): void;
  /** Chunks just removed. */
  removed(ids: number[]): void;
}

/** The code model's side of the code index. */
export interface CodeVectors extends ChunkVectorsHook {
  /** The model and the vectors of its version, loading it on the first call; null without a model. */
  ready(): { model: CodeModel; repo: CodeVectorsRepo } | null;
  /** The `k` chunks nearest a question, by the loaded model; null without a model. */
  nearest(query: string, k: number): CodeVectorHit[] | null;
  /** Resolves when the background job (if one started) is done. */
  idle(): Promise<void>;
  /** Stops the background job after its current round. */
  stop(): Promise<void>;
}

/** Chunks embedded per round of the background job (about 0.1 ms each, so a round holds the thread ~50 ms). */
const ROUND = 500;

/**
 * The code vectors over `db` with the model of `loader`; `chunksOf` reads chunks by index id (the code
 * index's `hitsByIds`), for the background job.
 */
export function createCodeVectors(deps: {
  db: Db;
  loader: CodeModelLoader;
  chunksOf: (ids: number[]) => (ChunkForModel & { id: number })[];
  logger: Logger;
}): CodeVectors {
  const { db, loader, logger } = deps;
  let current: { model: CodeModel; repo: CodeVectorsRepo } | null = null;
  let job: Promise<void> = Promise.resolve();
  let stopped = false;
  let failed = false;

  const reembed = async (repo: CodeVectorsRepo, model: CodeModel) => {
    const started = Date.now();
    let done = 0;
    const round = writeTransaction(db, (ids: number[]) => {
      const byId = new Map(deps.chunksOf(ids).map((c) => [c.id, c]));
      // a chunk whose row is gone is marked done without a vector (prune takes it later)
      repo.putNow(ids.map((id) => ({ id, vector: vectorOf(model, byId.get(id)) })));
    });
    for (let ids = repo.pending(ROUND); ids.length > 0 && !stopped; ids = repo.pending(ROUND)) {
      round(ids);
      done += ids.length;
      await new Promise((resolve) => setImmediate(resolve)); // requests run between rounds
    }
    if (stopped) return;
    const pruned = repo.prune();
    const dropped = repo.dropOtherVersions();
    if (done + pruned + dropped.length > 0) {
      logger.info({ version: repo.version, embedded: done, pruned, dropped, ms: Date.now() - started }, 'code vectors up to date'); // prettier-ignore
    }
  };

  const ready = () => {
    if (current) return current;
    const model = loader.get();
    if (!model) return null;
    current = { model, repo: createCodeVectorsRepo(db, model.version, model.dims) };
    const { repo } = current;
    // started after the write or query that loaded the model, never inside its transaction
    job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => reembed(repo, model))
      .catch((err: unknown) => logger.warn({ reason: (err as Error).message }, 'embedding code chunks failed'));
    return current;
  };

  /** Runs a write's vector work; a failure (another process dropped a table) is logged once, never fails the write. */
  const guarded = (what: () => void) => {
    try {
      what();
    } catch (err) {
      if (!failed) logger.warn({ reason: (err as Error).message }, 'code vectors not written; they are made again when the model next loads'); // prettier-ignore
      failed = true;
    }
  };

  return {
    written(ids, chunks) {
      if (chunks.length === 0) return;
      const r = ready();
      if (r) guarded(() => r.repo.putNow(ids.map((id, i) => ({ id, vector: vectorOf(r.model, chunks[i]) }))));
    },
    removed(ids) {
      if (ids.length === 0) return;
      // without a model, vectors of removed chunks stay until one loads: its job prunes them
      const r = ready();
      if (r) guarded(() => r.repo.removeNow(ids));
    },
    ready,
    nearest(query, k) {
      const r = ready();
      if (!r) return null;
      const vector = r.model.embedQuery(query);
      if (!vector.some((x) => x !== 0)) return []; // no word of the query is known to the model
      return r.repo.nearest(vector, k);
    },
    idle: () => job,
    async stop() {
      stopped = true;
      await job;
    },
  };
}

/** A chunk's vector, or null when the model knows none of its terms (or the chunk is gone). */
function vectorOf(model: CodeModel, chunk: ChunkForModel | undefined): Float32Array | null {
  if (!chunk) return null;
  const v = model.embedChunk(chunk);
  return v.some((x) => x !== 0) ? v : null;
}
