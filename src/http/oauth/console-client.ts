/**
 * The web console as a client of Trawl's own authorization server: public (no secret), authorization
 * code with PKCE, its one redirect URI on this server (src/http/console/oauth-sign-in.ts). Registered
 * statically, beside the clients that come by metadata document or registration.
 */
export const CONSOLE_CLIENT_ID = 'trawl-console';

/** The client's metadata, for the authorization server at `base` (the public URL). */
export function consoleClient(base: string) {
  return {
    client_id: CONSOLE_CLIENT_ID,
    client_name: 'Trawl console',
    redirect_uris: [`${base}/console/oauth/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  } as const;
}
