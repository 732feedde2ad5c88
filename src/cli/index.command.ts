/** `trawl index rebuild | stats`: the search index of the data directory (derived from its documents). */
import { createApp } from '../app.js';
import type { Config } from '../config/config.js';
import { createLogger } from '../lib/logger.js';

/** Re-indexes every stored document from scratch; progress on stderr, the count on stdout. */
export async function rebuildIndex(config: Config): Promise<void> {
  const app = createApp(config, { logger: createLogger('silent') });
  try {
    const started = Date.now();
    const total = app.services.documents.count();
    const n = app.services.searchIndex.rebuild((done) => process.stderr.write(`indexed ${done} of ${total}\n`));
    process.stderr.write(
      `Rebuilt the search index: ${n} documents in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
    );
    process.stdout.write(`${n}\n`);
  } finally {
    await app.close();
  }
}

/** Prints the index's document count and field statistics as JSON. */
export async function indexStats(config: Config): Promise<void> {
  const app = createApp(config, { logger: createLogger('silent') });
  try {
    const { searchIndex, documents } = app.services;
    const stats = searchIndex.repo.stats();
    const out = { documents: documents.count(), indexed: stats.docs, tombstones: searchIndex.repo.deletedIds().length };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await app.close();
  }
}
