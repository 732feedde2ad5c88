/** The signed-in session as `GET /console/session` answers it, and what its key's scopes allow. */
import { api, post, setCsrf } from './api.js';

/** Every scope a key may hold (src/core/access/scopes.ts), with what each lets the console do. */
export const SCOPES = [
  ['search', 'Search the web and the index, and ask for answers (Playground: search, answer)'],
  ['contents', 'Read pages by URL (Playground: contents)'],
  ['context', 'Code context from the code index (Playground: code context)'],
  ['monitors', 'Scheduled searches that post to a webhook (Monitors)'],
  ['agent', 'Research tasks run by the agent (Agent runs)'],
  ['admin:team', "Its own team's keys, usage and audit (Keys, Usage)"],
  ['admin', 'Every team, credits, the index and the status report (every page)'],
] as const;

/** One scope's name. */
export type Scope = (typeof SCOPES)[number][0];

export interface SignedIn {
  signedIn: true;
  oauth: boolean;
  key: { id: string; name: string; scopes: string[] };
  team: { id: string; name: string };
  csrf: string;
  expiresAt: string;
}
export type Session = SignedIn | { signedIn: false; oauth: boolean };

/** Whether `scopes` grant `needed`: `admin` holds `admin:team` too (as on the server). */
export function hasScope(scopes: readonly string[], needed: Scope): boolean {
  return scopes.includes(needed) || (needed === 'admin:team' && scopes.includes('admin'));
}

/** The current session; its CSRF token is kept (in memory) for the requests that follow. */
export async function loadSession(): Promise<Session> {
  const session = await api<Session>('/console/session');
  setCsrf(session.signedIn ? session.csrf : null);
  return session;
}

/** Exchanges a pasted key for a session cookie; the key itself is not kept anywhere. */
export async function signIn(key: string): Promise<SignedIn> {
  const session = await post<SignedIn>('/console/session', { key });
  setCsrf(session.csrf);
  return session;
}

/** Ends the session on the server (the cookie is cleared) and forgets the CSRF token. */
export async function signOut(): Promise<void> {
  try {
    await api<void>('/console/session', { method: 'DELETE' });
  } finally {
    setCsrf(null);
  }
}
