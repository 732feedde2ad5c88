/**
 * The data directory as a status report sees it: whether it exists, whether Trawl can write there
 * (tried with a scratch file, since permission bits lie about read-only mounts), and its size. Checking
 * creates nothing: a directory that does not exist yet is writable when its nearest existing parent is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DATABASE_FILE } from '../../store/sqlite/database.js';
import type { DataDirStatus } from './report.js';

/** Files walked at most to sum the size: a data directory with cloned repositories can be large. */
const MAX_ENTRIES = 200_000;

const reason = (err: unknown) => (err instanceof Error ? err.message.replace(/^\w+: /, '') : String(err));

/** Creates and removes a scratch file in `dir`; the error in words when that fails. */
function tryWrite(dir: string): string | undefined {
  const probe = path.join(dir, `.trawl-write-check-${process.pid}`);
  try {
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
    return undefined;
  } catch (err) {
    return reason(err);
  }
}

/** Whether a directory that does not exist could be created: its nearest existing ancestor decides. */
function creatable(dir: string): string | undefined {
  for (let parent = path.dirname(dir); ; parent = path.dirname(parent)) {
    if (fs.existsSync(parent)) {
      if (!fs.statSync(parent).isDirectory()) return `${parent} is a file, not a directory`;
      return tryWrite(parent);
    }
    if (parent === path.dirname(parent)) return 'no parent directory exists';
  }
}

/** Sum of file sizes under `dir` (symbolic links not followed), stopping after MAX_ENTRIES entries. */
function sizeOf(dir: string): { bytes: number; capped: boolean } {
  let bytes = 0;
  let seen = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue; // unreadable: counted as empty
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return { bytes, capped: true };
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) bytes += fs.lstatSync(full, { throwIfNoEntry: false })?.size ?? 0;
    }
  }
  return { bytes, capped: false };
}

/** The data directory's status; never throws. */
export function dataDirStatus(dir: string): DataDirStatus {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir, { throwIfNoEntry: false });
  } catch {
    stat = undefined; // a path through a file (ENOTDIR): `creatable` says why
  }
  if (stat && !stat.isDirectory()) {
    return {
      path: dir,
      exists: true,
      writable: false,
      database: false,
      bytes: 0,
      sizeCapped: false,
      problem: 'it is a file, not a directory',
    };
  }
  if (!stat) {
    const problem = creatable(dir);
    return {
      path: dir,
      exists: false,
      writable: !problem,
      database: false,
      bytes: 0,
      sizeCapped: false,
      ...(problem ? { problem } : {}),
    };
  }
  const problem = tryWrite(dir);
  const size = sizeOf(dir);
  return {
    path: dir,
    exists: true,
    writable: !problem,
    database: fs.existsSync(path.join(dir, DATABASE_FILE)),
    bytes: size.bytes,
    sizeCapped: size.capped,
    ...(problem ? { problem } : {}),
  };
}
