/**
 * Secrets at rest (webhook secrets, the authorization server's keys): sealed with AES-256-GCM under the
 * operator key, which comes from `TRAWL_SECRET_KEY` or, when that is not set, from `<dataDir>/secret.key`
 * (created on first use). During a rotation the previous key (`TRAWL_SECRET_KEY_PREVIOUS`) still opens
 * what it sealed; new seals use the current key, and `trawl secrets reseal` moves the rest over.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Seals and opens short secrets under one key. */
export interface SecretBox {
  /** `v1.<iv>.<tag>.<ciphertext>`, each base64url; a fresh IV every time. */
  seal(plain: string): string;
  /** The sealed text's plaintext; throws an Error (without secret material) when it was altered, sealed under another key, or is not a sealed value. */
  open(sealed: string): string;
  /** Whether the current key (not the previous one) opens `sealed`. */
  isCurrent(sealed: string): boolean;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;
const KEY_FILE = 'secret.key';
const KEY_FORM = 'a 32-byte key given as base64 (standard or URL-safe) or as 64 hex characters';

function fromB64url(text: string): Buffer | undefined {
  return B64URL.test(text) ? Buffer.from(text, 'base64url') : undefined;
}

/**
 * Creates the box; throws when `key` (or `previous`) is not 32 bytes. With `previous`, what it sealed
 * still opens; seals always use `key`.
 */
export function createSecretBox(key: Buffer, previous?: Buffer): SecretBox {
  const current = createOneKeyBox(key);
  if (!previous) return current;
  const old = createOneKeyBox(previous);
  return {
    seal: current.seal,
    isCurrent: current.isCurrent,
    open(sealed) {
      try {
        return current.open(sealed);
      } catch (err) {
        try {
          return old.open(sealed);
        } catch {
          throw err;
        }
      }
    },
  };
}

function createOneKeyBox(key: Buffer): SecretBox {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) {
    throw new Error(`the secret box needs a ${KEY_BYTES}-byte key`);
  }
  const box = Buffer.from(key);
  const self: SecretBox = {
    isCurrent(sealed) {
      try {
        self.open(sealed);
        return true;
      } catch {
        return false;
      }
    },
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', box, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
      return `v1.${parts.join('.')}`;
    },
    open(sealed) {
      const [version, ...parts] = typeof sealed === 'string' ? sealed.split('.') : [];
      const [iv, tag, ciphertext] = parts.map(fromB64url);
      if (version !== 'v1' || parts.length !== 3 || !iv || !tag || !ciphertext) {
        throw new Error('not a sealed secret (expected the v1.<iv>.<tag>.<ciphertext> format)');
      }
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new Error('the sealed secret is malformed (wrong IV or tag length)');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', box, iv, { authTagLength: TAG_BYTES });
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('the sealed secret cannot be opened: it was altered or sealed under another key');
      }
    },
  };
  return self;
}

/** 32 bytes from 64 hex characters or canonical base64 (standard or URL-safe, padding optional); else undefined. */
function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const url = trimmed
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/={0,2}$/, '');
  if (!/^[A-Za-z0-9_-]{43}$/.test(url)) return undefined;
  const key = Buffer.from(url, 'base64url');
  // Re-encoding catches a last character whose unused low bits are set (a typo, not the same key).
  return key.length === KEY_BYTES && key.toString('base64url') === url ? key : undefined;
}

function readKeyFile(file: string): Buffer {
  const key = parseKey(fs.readFileSync(file, 'utf8'));
  if (!key) {
    throw new Error(
      `${file} does not hold ${KEY_FORM}; restore the original file (secrets sealed under it cannot be opened without it)`,
    );
  }
  return key;
}

/**
 * The key of `<dataDir>/secret.key` when the file exists, read without creating or changing anything
 * (`trawl migrate` reads a directory it must not alter); undefined when there is none. Throws, naming
 * the file, when it holds something other than a 32-byte key.
 */
export function readOperatorKeyFile(dataDir: string): Buffer | undefined {
  const file = path.join(dataDir, KEY_FILE);
  return fs.existsSync(file) ? readKeyFile(file) : undefined;
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * Writes a new key file so that no reader ever sees it half-written: the key goes to a private temporary
 * file, which is then hard-linked into place (failing with EEXIST when another process got there first).
 * Where hard links are not supported, an exclusive create (`wx`) is the fallback.
 */
function createKeyFile(file: string): void {
  const text = `${randomBytes(KEY_BYTES).toString('base64')}\n`;
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(temp, text, { flag: 'wx', mode: 0o600 });
  try {
    fs.linkSync(temp, file);
  } catch (err) {
    if (errno(err) === 'EEXIST') throw err;
    fs.writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/** The key of `TRAWL_SECRET_KEY_PREVIOUS` (blank: none); throws, naming the setting, for another form. */
export function parsePreviousKey(configured: string | undefined): Buffer | undefined {
  if (configured === undefined || configured.trim() === '') return undefined;
  const key = parseKey(configured);
  if (!key) throw new Error(`TRAWL_SECRET_KEY_PREVIOUS must be ${KEY_FORM}: the key TRAWL_SECRET_KEY held before`);
  return key;
}

/**
 * The operator key: `configured` (the `TRAWL_SECRET_KEY` setting; blank counts as unset) when given, else
 * `<dataDir>/secret.key`, created with mode 0600 on first use. Throws, naming the setting or the file and
 * the expected form, when either holds something other than a 32-byte key.
 */
export function loadOperatorKey(options: { configured?: string; dataDir: string }): Buffer {
  if (options.configured !== undefined && options.configured.trim() !== '') {
    const key = parseKey(options.configured);
    if (!key) throw new Error(`TRAWL_SECRET_KEY must be ${KEY_FORM}, e.g. the output of \`openssl rand -base64 32\``);
    return key;
  }
  const file = path.join(options.dataDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    try {
      createKeyFile(file);
    } catch (err) {
      // Another process created it between the check and the create: use that one.
      if (errno(err) !== 'EEXIST') throw err;
    }
  }
  // 0600 whatever the umask, and an older file brought back to it (no import: tests load this file alone)
  try {
    fs.chmodSync(file, 0o600);
  } catch (err) {
    if (errno(err) !== 'EPERM') throw err; // a file someone else owns (a mounted secret) stays as it is
  }
  return readKeyFile(file);
}
