/**
 * Files only their owner may read: the data directory (0700) and what it holds (databases and their
 * WAL files, keys: 0600), whatever the process umask, and existing ones brought back to those modes.
 */
import fs from 'node:fs';

/** Mode of the data directory. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of each file in it. */
export const PRIVATE_FILE_MODE = 0o600;

/** Sets `mode` on `target`, leaving it alone when the process may not (a directory someone else owns). */
function chmodIfOwned(target: string, mode: number): void {
  try {
    fs.chmodSync(target, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOENT') throw err;
  }
}

/** Creates `dir` (and its parents) if needed, then makes it 0700 (chmod: the umask cannot widen it). */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodIfOwned(dir, PRIVATE_DIR_MODE);
}

/** Makes an existing `file` 0600; nothing when it does not exist. */
export function restrictFile(file: string): void {
  chmodIfOwned(file, PRIVATE_FILE_MODE);
}

/**
 * Creates `file` empty with mode 0600 if it does not exist and makes it (and an SQLite database's
 * `-wal`, `-shm` and `-journal` files, when present) 0600. SQLite gives the WAL files it creates later
 * the database file's mode, so a database opened after this stays private.
 */
export function ensurePrivateDatabaseFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const suffix of ['', '-wal', '-shm', '-journal']) restrictFile(`${file}${suffix}`);
}
