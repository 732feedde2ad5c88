/**
 * The identity rule: a person signed in through an OAuth or OIDC issuer (known by issuer and subject, and
 * perhaps an email and other claims) acts as a Trawl key of one team, made on their first use. The team
 * comes from a claim naming it (TRAWL_AUTH_TEAM_CLAIM) or else from the verified email's domain
 * (TRAWL_AUTH_EMAIL_TEAMS); a person matched by neither is refused. docs/accounts.md says the same.
 */
import { ServiceError } from '../../errors.js';

/** A person as an issuer vouches for them. */
export interface Identity {
  /** The issuer's identifier (`iss`). */
  issuer: string;
  /** The person's stable id at that issuer (`sub`). */
  subject: string;
  email?: string;
  /** false when the issuer says the email is not verified: then it decides no team. */
  emailVerified?: boolean;
  /** Every claim of the token or ID token, where the team claim is looked for. */
  claims: Readonly<Record<string, unknown>>;
}

/** How a person is mapped to a team (the operator's settings). */
export interface IdentityRule {
  /** The claim naming the team (its id or name); default `trawl_team`. */
  teamClaim: string;
  /** Lower-case email domain → team id or name. */
  emailTeams: Readonly<Record<string, string>>;
}

/** The default rule: the `trawl_team` claim, no email domains. */
export const DEFAULT_IDENTITY_RULE: IdentityRule = { teamClaim: 'trawl_team', emailTeams: {} };

/** The identity a key stands for, as stored (`api_keys.identity`): issuer and subject. */
export const identityKeyOf = (identity: Identity): string => `${identity.issuer} ${identity.subject}`;

/** Who a person is, for messages and key names: their email, else their subject at the issuer's host. */
export function personOf(identity: Identity): string {
  if (identity.email) return identity.email.slice(0, 80);
  let host = identity.issuer;
  try {
    host = new URL(identity.issuer).host;
  } catch {
    // an issuer that is not a URL is named as it is
  }
  return `${identity.subject.slice(0, 60)}@${host.slice(0, 30)}`;
}

/** The name of a person's key, as `trawl keys list` shows it. */
export const identityKeyName = (identity: Identity): string => `oauth: ${personOf(identity)}`.slice(0, 100);

/** The team a claim names: a string, or the first string of a list. */
function claimedTeam(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (Array.isArray(value)) return value.find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim();
  return undefined;
}

/**
 * The team id or name the rule gives `identity`: the team claim, else the domain of a verified email;
 * IDENTITY_NOT_MAPPED (403) naming what was missing when neither applies.
 */
export function teamRefOf(identity: Identity, rule: IdentityRule): string {
  const claimed = claimedTeam(identity.claims[rule.teamClaim]);
  if (claimed) return claimed;
  const domain = identity.email?.split('@')[1]?.toLowerCase();
  const byEmail = domain && identity.emailVerified !== false ? rule.emailTeams[domain] : undefined;
  if (byEmail) return byEmail;
  const why = !identity.email
    ? 'no email'
    : identity.emailVerified === false
      ? `the email ${personOf(identity)} is not verified`
      : `the email domain "${domain ?? ''}" is not listed in TRAWL_AUTH_EMAIL_TEAMS`;
  throw new ServiceError(
    'IDENTITY_NOT_MAPPED',
    `${personOf(identity)} belongs to no Trawl team: the token has no "${rule.teamClaim}" claim and ${why}. An operator maps people to teams with the issuer's "${rule.teamClaim}" claim or TRAWL_AUTH_EMAIL_TEAMS (docs/accounts.md).`,
  );
}
