/** Settings of sign-in with OAuth: the public URL of the listener, an external authorization server, and the rule that maps its people to teams. */
import { z } from 'zod';
import { list } from './fields.js';

/** An absolute http(s) URL without query or fragment, as given. */
const httpUrl = z
  .string()
  .refine((raw) => URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol), 'must be an http(s) URL')
  .refine(
    (raw) => !URL.canParse(raw) || (!new URL(raw).search && !new URL(raw).hash),
    'must have no query or fragment',
  );

/** The same without its trailing slash (resources are named by appending `/mcp` or `/`). */
const baseUrl = httpUrl.transform((raw) => raw.replace(/\/+$/, ''));

/** `example.com=TEAM,other.org=TEAM2` as a map of lower-case domains to team ids or names. */
const emailTeams = z.string().transform((text, ctx) => {
  const out: Record<string, string> = {};
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [domain, team, ...rest] = entry.split('=').map((s) => s.trim());
    if (!domain || !team || rest.length > 0 || !/^[a-z0-9.-]+$/i.test(domain)) {
      ctx.addIssue({ code: 'custom', message: `"${entry.slice(0, 80)}" is not domain=TEAM` });
      return z.NEVER;
    }
    out[domain.toLowerCase()] = team;
  }
  return out;
});

/** Rows of SETTINGS (../settings.ts): env var, CLI flag, schema, default and the line docs/configuration.md shows. */
export const AUTH_SETTINGS = {
  publicUrl: {
    env: 'TRAWL_PUBLIC_URL',
    flag: '--public-url',
    schema: baseUrl,
    default: undefined,
    doc: 'The URL clients reach `trawl serve` at (behind TLS or a proxy: `https://trawl.example.com`). OAuth names its resources by it (`<url>/mcp`, `<url>/`): the audience tokens must carry and the protected-resource metadata. Default: `http://<host>:<port>` of the listener, with the port it bound.',
  },
  authIssuer: {
    env: 'TRAWL_AUTH_ISSUER',
    flag: '--auth-issuer',
    // compared with the tokens' `iss` exactly: Auth0's ends with a slash, Keycloak's does not
    schema: httpUrl,
    default: undefined,
    doc: "An external OAuth authorization server (Keycloak realm, Entra tenant, Auth0 domain) whose JWT access tokens `/mcp` and the REST routes accept, written exactly as its tokens' `iss` (Auth0's ends with `/`); its metadata and keys are fetched from it (it may be on a private address). API keys keep working. docs/install.md, 'Deployment with an external authorization server'.",
  },
  authAudience: {
    env: 'TRAWL_AUTH_AUDIENCE',
    flag: '--auth-audience',
    schema: list,
    default: [] as string[],
    doc: "Audiences (`aud`) an external issuer's tokens may carry, comma-separated, when it cannot name the resource URL (Auth0's API identifier, Entra's application ID URI). Default: the resource itself, `<public url>/mcp` for `/mcp` and `<public url>/` for REST (RFC 8707).",
  },
  authTeamClaim: {
    env: 'TRAWL_AUTH_TEAM_CLAIM',
    flag: '--auth-team-claim',
    schema: z.string().min(1).max(200),
    default: 'trawl_team',
    doc: "The token claim naming a person's team (its id or name); without it, `TRAWL_AUTH_EMAIL_TEAMS` decides by the email domain (docs/accounts.md, 'People signed in with OAuth').",
  },
  authEmailTeams: {
    env: 'TRAWL_AUTH_EMAIL_TEAMS',
    flag: '--auth-email-teams',
    schema: emailTeams,
    default: {} as Record<string, string>,
    doc: 'Teams by verified email domain, for people whose token names no team: `example.com=TEAM,other.org=TEAM2` (team ids or names). A person matched by neither is refused (403).',
  },
  oidcIssuer: {
    env: 'TRAWL_OIDC_ISSUER',
    flag: '--oidc-issuer',
    schema: httpUrl,
    default: undefined,
    doc: 'With `TRAWL_OAUTH=on`: an OpenID Connect issuer (your organisation\'s identity provider) people may sign in through on Trawl\'s sign-in page ("Sign in with your organisation"), mapped to a team by `TRAWL_AUTH_TEAM_CLAIM` or `TRAWL_AUTH_EMAIL_TEAMS`. Register Trawl there as a confidential client with the redirect URI `<TRAWL_PUBLIC_URL>/oauth/federated/callback`.',
  },
  oidcClientId: {
    env: 'TRAWL_OIDC_CLIENT_ID',
    flag: '--oidc-client-id',
    schema: z.string().min(1).max(500),
    default: undefined,
    doc: "Trawl's client id at `TRAWL_OIDC_ISSUER`.",
  },
  oidcClientSecret: {
    env: 'TRAWL_OIDC_CLIENT_SECRET',
    flag: '--oidc-client-secret',
    schema: z.string().min(1).max(2000),
    default: undefined,
    doc: "Trawl's client secret at `TRAWL_OIDC_ISSUER` (HTTP Basic at its token endpoint). Never logged; prefer the variable to the flag.",
  },
} as const;
