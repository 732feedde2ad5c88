/**
 * `trawl index PATH|URL…`: code for /context (folders, shallow clones of git repositories, node_modules
 * packages), re-indexing only what changed; `trawl index rebuild | stats`: the search index of the data
 * directory (derived from its documents) and the sizes of both indexes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDoor } from '../compose/open.js';
import type { OperatorDoor } from '../compose/door.js';
import type { Config } from '../config/config.js';
import { cloneShallow, repoName } from '../core/code/walk/git.js';
import type { IndexReport, IndexTarget } from '../core/code/index/indexer.js';
import { toServiceError } from '../errors.js';
import { createLogger } from '../lib/logger.js';

/** The flags of `trawl index`, as commander parses them. */
export interface IndexFlags {
  packages?: boolean;
  name?: string;
  json?: boolean;
}

const isRemote = (target: string) => /^(?:https?:\/\/|ssh:\/\/|git@)/.test(target);

/** A remote repository is cloned (shallow) into `<data dir>/repos/<name>`, replacing an older clone. */
async function targetOf(app: OperatorDoor, target: string, flags: IndexFlags): Promise<IndexTarget> {
  if (!isRemote(target)) return { root: target, name: flags.name, packages: flags.packages };
  const name = flags.name ?? repoName(target);
  const dest = path.join(app.config.dataDir, 'repos', name);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  process.stderr.write(`cloning ${target} (shallow)…\n`);
  await cloneShallow(target, dest, {});
  return { root: dest, name, kind: 'repository', location: target, packages: flags.packages };
}

function summary(r: IndexReport): string {
  const skipped =
    Object.entries(r.skipped)
      .map(([why, n]) => `${n} ${why}`)
      .join(', ') || 'none';
  const files = `${r.added} added, ${r.changed} changed, ${r.removed} removed, ${r.unchanged} unchanged`;
  return `${r.source}: ${r.files} files (${files}), ${r.chunks} chunks written in ${r.seconds} s; skipped: ${skipped}`;
}

/** Indexes each target; a failing target (a clone without network) is reported and the others go on. */
export async function indexCode(config: Config, targets: string[], flags: IndexFlags): Promise<void> {
  const app = await openDoor(config, { follow: false }); // the logger of the settings (level, format)
  const reports: IndexReport[] = [];
  let failed = 0;
  try {
    for (const raw of targets) {
      try {
        const target = await targetOf(app, raw, flags);
        const onProgress = (done: number, total: number) => process.stderr.write(`${raw}: ${done}/${total} files\n`);
        const report = await app.operator.indexer.indexTree(target, { onProgress });
        reports.push(report);
        if (!flags.json) process.stdout.write(`${summary(report)}\n`);
      } catch (err) {
        failed++;
        process.stderr.write(`trawl: ${raw}: ${toServiceError(err).message}\n`);
      }
    }
    if (flags.json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
  } finally {
    await app.close();
  }
  if (failed > 0) process.exitCode = 1;
}

/** Re-indexes every stored document from scratch; progress on stderr, the count on stdout. */
export async function rebuildIndex(config: Config): Promise<void> {
  const app = await openDoor(config, { logger: createLogger('silent'), follow: false });
  try {
    const started = Date.now();
    const total = await app.operator.documents.count();
    const n = await app.operator.searchIndex.rebuild((done) => process.stderr.write(`indexed ${done} of ${total}\n`));
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
  const app = await openDoor(config, { logger: createLogger('silent'), follow: false });
  try {
    const { searchIndex, documents, code, indexer } = app.operator;
    const stats = searchIndex.repo.stats();
    const out = {
      documents: await documents.count(),
      indexed: stats.docs,
      tombstones: searchIndex.repo.deletedIds().length,
      code: { chunks: code.count(), sources: await indexer.sources() },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await app.close();
  }
}
