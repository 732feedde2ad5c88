/**
 * The contract of the console's sign-in sessions (sqlite/console-sessions.ts, pg/console-sessions.ts):
 * one row per signed-in browser, found by the SHA-256 of its cookie's value, so the store never holds a
 * value that would let anyone act as the session. On PostgreSQL every replica sees every session, so a
 * sign-in on one works on the others.
 */

/** A session as stored. */
export interface ConsoleSessionRow {
  /** SHA-256 (hex) of the cookie's value. */
  idHash: string;
  /** The API key the session acts as; its team owns the session. */
  keyId: string;
  teamId: string;
  /** The token every request of the session echoes in `x-trawl-csrf`. */
  csrf: string;
  /** Scopes narrower than the key's (an OAuth sign-in's grant), or null for the key's own. */
  scopes: string[] | null;
  createdMs: number;
  /** The session ends here unless a request moves it on (never past the session's longest life). */
  expiresMs: number;
  lastSeenMs: number;
}

export interface ConsoleSessionsRepo {
  insert(row: ConsoleSessionRow): Promise<void>;
  /** The session of `idHash`, expired or not (the service decides), or undefined. */
  get(idHash: string): Promise<ConsoleSessionRow | undefined>;
  /** Records a request of the session and its new end. */
  touch(idHash: string, lastSeenMs: number, expiresMs: number): Promise<void>;
  /** Ends one session; whether it was there. */
  delete(idHash: string): Promise<boolean>;
  /** Ends every session of a key (its revocation); how many. */
  deleteForKey(keyId: string): Promise<number>;
  /** Ends every session of a team (it was blocked); how many. */
  deleteForTeam(teamId: string): Promise<number>;
  /** Drops sessions that ended before `nowMs`; how many. */
  deleteExpired(nowMs: number): Promise<number>;
}
