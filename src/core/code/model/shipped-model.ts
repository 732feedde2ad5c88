/**
 * The code model a process uses, loaded lazily: the file shipped in the package (`models/code-retriever.bin`)
 * or the one `TRAWL_CODE_MODEL` names, read on the first code query or the first code-index write, never
 * at start-up (the MCP door's cold start must not pay for 13 MB). A missing or broken file is warned
 * about once; every later call answers without the model (lexically). docs/code-context.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../../lib/logger.js';
import { loadCodeModel, type CodeModel } from './code-model.js';

/** The shipped model's path inside the package. */
export const SHIPPED_MODEL = 'models/code-retriever.bin';

/**
 * Where the code model is, as a status report or a loader sees it: `off` (set so), `provider` (an
 * embeddings provider ranks code instead), `unloaded` (not needed yet), `loaded`, or `missing` (the
 * file is absent, unreadable or not a model: code is ranked lexically).
 */
export interface CodeModelState {
  state: 'off' | 'provider' | 'unloaded' | 'loaded' | 'missing';
  /** The model file (null when off, or when no package root was found). */
  file: string | null;
  /** `trawl-code-…`, once loaded. */
  version?: string;
  /** Why it could not be loaded. */
  problem?: string;
}

/** The code model of a process: loaded at the first `get()`, once. */
export interface CodeModelLoader {
  /** The model, loaded on the first call; null when off, or when it cannot be loaded (warned once). */
  get(): CodeModel | null;
  /** Where it stands, without loading it. */
  state(): CodeModelState;
  /** Calls `fn` once the model is loaded (at once when it is). */
  onLoad(fn: (model: CodeModel) => void): void;
}

/**
 * The package's root: the first folder above `from` holding a package.json named "trawl" (a checkout,
 * an installed package, the MCP bundle; the CLI is an esbuild bundle in dist/bin, so no fixed depth).
 */
export function packageRoot(from: string = import.meta.url): string | null {
  let dir = path.dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'trawl') return dir;
    } catch {
      // no package.json here, or not JSON: keep walking up
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The model file a setting names: `off` → null; a path; unset → the shipped file (null when no package root). */
export function codeModelFile(setting: string | undefined): string | null {
  if (setting === 'off') return null;
  if (setting) return path.resolve(setting);
  const root = packageRoot();
  return root ? path.join(root, SHIPPED_MODEL) : null;
}

/**
 * The loader of `setting` (`TRAWL_CODE_MODEL`: a path, `off`, or unset for the shipped file). With
 * `provider` set, the model is never loaded: an embeddings provider ranks code (docs/code-context.md).
 */
export function createCodeModelLoader(deps: {
  setting: string | undefined;
  logger: Logger;
  provider?: boolean;
}): CodeModelLoader {
  const file = deps.provider ? null : codeModelFile(deps.setting);
  const off = deps.provider ? 'provider' : deps.setting === 'off' ? 'off' : null;
  let model: CodeModel | null = null;
  let problem: string | undefined = off || file ? undefined : 'no package root found to find the shipped model in';
  const waiting: ((m: CodeModel) => void)[] = [];
  const load = (): CodeModel | null => {
    const rss = process.memoryUsage.rss();
    const started = performance.now();
    try {
      model = loadCodeModel(file!);
    } catch (err) {
      problem = (err as Error).message;
      deps.logger.warn({ file, reason: problem }, 'code model not loaded; code context is ranked lexically');
      return null;
    }
    const ms = Math.round(performance.now() - started);
    const rssAddedMb = Math.round((process.memoryUsage.rss() - rss) / 2 ** 20);
    deps.logger.info({ file, version: model.version, ms, rssAddedMb }, 'code model loaded');
    for (const fn of waiting.splice(0)) fn(model);
    return model;
  };
  return {
    get() {
      if (model || off || problem) return model;
      return load();
    },
    state() {
      if (off) return { state: off, file: null };
      if (model) return { state: 'loaded', file, version: model.version };
      if (problem) return { state: 'missing', file, problem };
      return { state: 'unloaded', file };
    },
    onLoad(fn) {
      if (model) fn(model);
      else waiting.push(fn);
    },
  };
}
