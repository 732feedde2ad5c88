/**
 * Sign-in sessions of the web console (docs/console.md): a person proves they hold an API key once (by
 * pasting it, or through Trawl's own OAuth server), and the browser gets an opaque session value in an
 * `HttpOnly`, `SameSite=Strict` cookie instead of keeping the key where the page's script could read it.
 *
 * A session acts as its key: the same scopes (or fewer, for an OAuth grant), the same team, the same
 * tenancy rule on every request. The store keeps only the SHA-256 of the cookie's value. Every request
 * resolves the key again, so a session ends the moment its key is revoked or its team blocked, besides
 * its idle and absolute ends and sign-out.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleSessionsRepo } from '../../store/contracts/console-sessions.js';
import type { Caller, Clock } from '../context.js';
import type { KeysService } from './keys.service.js';
import { narrowedCaller } from './keys.service.js';

/** What the cookie's value looks like: a prefix (so logs and scanners can tell it), then 32 random bytes. */
const TOKEN_SHAPE = /^tcs_[A-Za-z0-9_-]{43}$/;
/** A request moves a session's end on at most this often, so reading pages is not a write per request. */
const TOUCH_EVERY_MS = 60_000;
/** The longest a session lives, however busy, unless the idle time is set longer. */
const MAX_LIFE_MS = 24 * 3600_000;

export interface ConsoleSessionSettings {
  /** A session ends after this long without a request. */
  idleMs: number;
}

/** A session just opened: the cookie's value (shown once, to the browser), its CSRF token and end. */
export interface OpenedSession {
  token: string;
  csrf: string;
  expiresMs: number;
}

/** A live session, resolved: who it acts as, and what the request must echo. */
export interface ResolvedSession {
  caller: Caller;
  csrf: string;
  expiresMs: number;
}

export interface ConsoleSessions {
  /**
   * Opens a session acting as `caller`'s key; `grantScopes`, for an OAuth sign-in, narrows it to the
   * scopes the person granted (the key's own are read again on every request).
   */
  open(caller: Caller, grantScopes?: readonly string[] | null): Promise<OpenedSession>;
  /**
   * The session a cookie's value names, or null when it is malformed, unknown, over, or its key is
   * revoked (the row is then dropped). A blocked team's session resolves; the door refuses its caller.
   */
  resolve(token: string): Promise<ResolvedSession | null>;
  /** Ends the session (sign-out); nothing happens for an unknown one. */
  close(token: string): Promise<void>;
  /** Ends every session of a key (its revocation); how many ended. */
  closeForKey(keyId: string): Promise<number>;
  /** Ends every session of a team (it was blocked); how many ended. */
  closeForTeam(teamId: string): Promise<number>;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Whether two CSRF tokens are equal, in time independent of where they differ. */
export function sameCsrf(expected: string, presented: string | undefined | null): boolean {
  if (!presented) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createConsoleSessions(
  repo: ConsoleSessionsRepo,
  keys: Pick<KeysService, 'callerOf'>,
  clock: Clock,
  settings: ConsoleSessionSettings,
): ConsoleSessions {
  const now = () => clock.now().getTime();
  const lifeMs = Math.max(MAX_LIFE_MS, settings.idleMs);
  return {
    async open(caller, grantScopes = null) {
      const token = `tcs_${randomBytes(32).toString('base64url')}`;
      const csrf = randomBytes(24).toString('base64url');
      const at = now();
      const expiresMs = Math.min(at + settings.idleMs, at + lifeMs);
      // each sign-in sweeps the sessions that are over, so the table holds about the live ones
      await repo.deleteExpired(at);
      await repo.insert({
        idHash: hashOf(token),
        keyId: caller.keyId,
        teamId: caller.teamId,
        csrf,
        scopes: grantScopes ? [...grantScopes] : null,
        createdMs: at,
        expiresMs,
        lastSeenMs: at,
      });
      return { token, csrf, expiresMs };
    },
    async resolve(token) {
      if (!TOKEN_SHAPE.test(token)) return null;
      const idHash = hashOf(token);
      const row = await repo.get(idHash);
      if (!row) return null;
      const at = now();
      const caller = row.expiresMs > at ? await keys.callerOf(row.keyId) : null;
      if (!caller) {
        await repo.delete(idHash);
        return null;
      }
      let expiresMs = row.expiresMs;
      if (at - row.lastSeenMs >= TOUCH_EVERY_MS) {
        expiresMs = Math.min(at + settings.idleMs, row.createdMs + lifeMs);
        await repo.touch(idHash, at, expiresMs);
      }
      return { caller: row.scopes ? narrowedCaller(caller, row.scopes) : caller, csrf: row.csrf, expiresMs };
    },
    async close(token) {
      if (TOKEN_SHAPE.test(token)) await repo.delete(hashOf(token));
    },
    closeForKey: (keyId) => repo.deleteForKey(keyId),
    closeForTeam: (teamId) => repo.deleteForTeam(teamId),
  };
}
