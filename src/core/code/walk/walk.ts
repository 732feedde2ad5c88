/**
 * The source files of a code tree, as `trawl index` sees them: ignore files honoured; vendored and
 * generated output, lock files, minified bundles and binaries left out. WALK.md lists the rules.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ServiceError } from '../../../errors.js';
import {
  classifyName,
  isKind,
  readHead,
  sniff,
  VCS_DIRS,
  VENDORED_DIRS,
  words,
  type Kind,
  type SkipReason,
} from './file-kinds.js';

export type { SkipReason } from './file-kinds.js';

/** One file worth indexing. */
export interface SourceFile {
  /** Relative to the walked root, with `/` separators. */
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}

/** What a walk yields and reports: packages, size cap, skip listener, abort signal. */
export interface WalkOptions {
  /** Files larger than this are left out (default 1 MiB). */
  maxFileBytes?: number;
  /** Also yield the docs, type declarations and sources of the root's `node_modules` packages. */
  packages?: boolean;
  signal?: AbortSignal;
  /** Told about each file or folder left out, with the reason; VCS folders are not reported. */
  onSkip?: (path: string, reason: SkipReason) => void;
}

const IGNORE_FILES = ['.gitignore', '.trawlignore'];
const statOf = (p: string) => fs.stat(p).catch(() => undefined);
const isDirectory = async (p: string): Promise<boolean> => (await statOf(p))?.isDirectory() ?? false;

const inside = (root: string, p: string): boolean => p === root || p.startsWith(root + path.sep);

/** Ignore rules read in one folder; `prefix` turns a root-relative path into one relative to that folder. */
interface Rules {
  base: string;
  prefix: string;
  ig: Ignore;
}

/** Git's precedence: the deepest ignore file with a matching rule decides; within a file the last rule. */
function ignoredBy(chain: readonly Rules[], rel: string, isDir: boolean): boolean {
  for (let i = chain.length - 1; i >= 0; i--) {
    const r = chain[i]!;
    const rest = r.base ? rel.slice(r.base.length + 1) : rel;
    // An empty rest tests the root itself from a folder above it: the prefix is its folder form.
    const local = r.prefix + rest + (isDir && rest ? '/' : '');
    const { ignored, unignored } = r.ig.test(local);
    if (ignored) return true;
    if (unignored) return false;
  }
  return false;
}

async function readRules(dir: string, names: readonly string[]): Promise<Ignore | undefined> {
  let ig: Ignore | undefined;
  for (const name of names) {
    const text = await fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) ig = (ig ?? ignore()).add(text);
  }
  return ig;
}

/**
 * The rules of the root and of the folders above it up to the enclosing work tree's top (where
 * `.git/info/exclude` also applies), so walking a subfolder of a repository honours the repository.
 * When those outer rules ignore the root itself, they are dropped: the caller asked for this folder.
 */
async function outerRules(root: string): Promise<Rules[]> {
  const dirs = [root];
  while (!(await statOf(path.join(dirs[0]!, '.git')))) {
    const parent = path.dirname(dirs[0]!);
    if (parent === dirs[0]) {
      dirs.splice(0, dirs.length - 1); // in no work tree: the root's own rules only
      break;
    }
    dirs.unshift(parent);
  }
  let chain: Rules[] = [];
  for (const [i, dir] of dirs.entries()) {
    if (dir === root && chain.length && ignoredBy(chain, '', true)) chain = [];
    const ig = await readRules(dir, i === 0 ? ['.git/info/exclude', ...IGNORE_FILES] : IGNORE_FILES);
    const up = path.relative(dir, root).split(path.sep).join('/');
    if (ig) chain.push({ base: '', prefix: up ? `${up}/` : '', ig });
  }
  return chain;
}

interface Walk {
  root: string;
  realRoot: string;
  maxFileBytes: number;
  seen: Set<string>;
  links: { rel: string; kind: Kind }[];
  signal: AbortSignal | undefined;
  skip: (rel: string, reason: SkipReason) => undefined;
}

async function readEntries(w: Walk, rel: string): Promise<Dirent[]> {
  try {
    const entries = await fs.readdir(path.join(w.root, rel), { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') w.skip(rel, 'unreadable');
    return [];
  }
}

/** Size, identity and first bytes decide; a file seen before (hard or symbolic link) is yielded once. */
async function acceptFile(w: Walk, rel: string, kind: Kind, viaLink: boolean): Promise<SourceFile | undefined> {
  const absolute = path.join(w.root, rel);
  try {
    // A link out of the root could make a cloned repository read any file on this machine.
    if (viaLink && !inside(w.realRoot, await fs.realpath(absolute))) return w.skip(rel, 'symlink');
    const st = await fs.stat(absolute);
    if (!st.isFile()) return undefined;
    if (st.size > w.maxFileBytes) return w.skip(rel, 'too-large');
    const id = `${st.dev}:${st.ino}`;
    if (w.seen.has(id)) return w.skip(rel, 'duplicate');
    const reason = sniff(await readHead(absolute), kind);
    if (reason) return w.skip(rel, reason);
    w.seen.add(id);
    return { path: rel, absolute, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return w.skip(rel, 'unreadable');
  }
}

async function* walkDir(w: Walk, rel: string, chain: readonly Rules[]): AsyncGenerator<SourceFile> {
  w.signal?.throwIfAborted();
  const entries = await readEntries(w, rel);
  const present = IGNORE_FILES.filter((n) => entries.some((e) => e.name === n));
  const ig = rel && present.length ? await readRules(path.join(w.root, rel), present) : undefined;
  if (ig) chain = [...chain, { base: rel, prefix: '', ig }];
  for (const e of entries) {
    if (VCS_DIRS.has(e.name)) continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    const link = e.isSymbolicLink();
    const isDir = e.isDirectory();
    if (!isDir && !link && !e.isFile()) continue;
    if (ignoredBy(chain, child, isDir)) w.skip(child, 'ignored');
    else if (isDir) {
      if (VENDORED_DIRS.has(e.name)) w.skip(child, 'vendored');
      else yield* walkDir(w, child, chain);
    } else if (link && (await isDirectory(path.join(w.root, child)))) w.skip(child, 'symlink');
    else {
      const verdict = classifyName(e.name);
      if (!isKind(verdict)) w.skip(child, verdict);
      // Links wait for the end of the walk, so a file reached both ways is yielded under its real path.
      else if (link) w.links.push({ rel: child, kind: verdict });
      else {
        const file = await acceptFile(w, child, verdict, false);
        if (file) yield file;
      }
    }
  }
}

// Inside a package: tests, examples and nested dependencies are noise; dist is kept for its .d.ts.
const PACKAGE_SKIPPED_DIRS = words(`
  node_modules test tests __tests__ __mocks__ spec example examples fixtures benchmark benchmarks coverage
  .git .hg .svn
`);

/** What a package file is, by the per-package rules of WALK.md, or undefined when it is not wanted. */
function packageFileKind(inner: string, source: string | undefined): Kind | undefined {
  const name = inner.slice(inner.lastIndexOf('/') + 1);
  if (/\.d\.[cm]?ts$/.test(name)) return 'types';
  if (inner === name && /^readme/i.test(name)) return 'doc';
  if (inner === 'package.json') return 'config';
  if (inner.startsWith('docs/') && /\.(md|mdx|markdown)$/i.test(name)) return 'doc';
  return source && inner.startsWith(`${source}/`) && classifyName(name) === 'code' ? 'code' : undefined;
}

async function* walkPackageDir(w: Walk, pkg: string, inner: string, source?: string): AsyncGenerator<SourceFile> {
  w.signal?.throwIfAborted();
  for (const e of await readEntries(w, inner ? `${pkg}/${inner}` : pkg)) {
    const child = inner ? `${inner}/${e.name}` : e.name;
    // Symbolic links inside a package are not followed, files included.
    if (e.isDirectory() && !PACKAGE_SKIPPED_DIRS.has(e.name)) yield* walkPackageDir(w, pkg, child, source);
    const kind = e.isFile() ? packageFileKind(child, source) : undefined;
    const file = kind && (await acceptFile(w, `${pkg}/${child}`, kind, false));
    if (file) yield file;
  }
}

async function* walkPackage(w: Walk, pkg: string): AsyncGenerator<SourceFile> {
  const abs = path.join(w.root, pkg);
  // pnpm links each package into node_modules/.pnpm: follow a link only while it stays inside the root.
  const real = await fs.realpath(abs).catch(() => '');
  if (!real || !inside(w.realRoot, real) || !(await isDirectory(abs))) return;
  const source = (await isDirectory(path.join(abs, 'src'))) ? 'src' : 'lib';
  yield* walkPackageDir(w, pkg, '', source);
}

async function* walkPackages(w: Walk): AsyncGenerator<SourceFile> {
  for (const e of await readEntries(w, 'node_modules')) {
    if (e.name.startsWith('.')) continue; // .bin, .pnpm, .package-lock.json: tooling, not packages
    const rel = `node_modules/${e.name}`;
    if (!e.name.startsWith('@')) yield* walkPackage(w, rel);
    else for (const s of await readEntries(w, rel)) yield* walkPackage(w, `${rel}/${s.name}`);
  }
}

/**
 * Streams the files of `root` worth indexing as code, docs or config, by the rules of WALK.md: depth
 * first in name order, then files reached through symbolic links, then packages when asked. Throws ServiceError `INVALID_REQUEST` when `root` is not a readable directory, and
 * the signal's reason when it aborts. Unreadable entries are skipped (reported as `unreadable`).
 */
export async function* walkCodeTree(root: string, options: WalkOptions = {}): AsyncGenerator<SourceFile> {
  const abs = path.resolve(root);
  if (!(await isDirectory(abs))) throw new ServiceError('INVALID_REQUEST', `${root} is not a readable directory.`);
  const onSkip = options.onSkip;
  const w: Walk = {
    root: abs,
    realRoot: await fs.realpath(abs),
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    seen: new Set(),
    links: [],
    signal: options.signal,
    skip: (rel, reason) => void onSkip?.(rel, reason),
  };
  yield* walkDir(w, '', await outerRules(abs));
  for (const { rel, kind } of w.links) {
    const file = await acceptFile(w, rel, kind, true);
    if (file) yield file;
  }
  if (options.packages) yield* walkPackages(w);
}
