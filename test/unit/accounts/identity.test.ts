/** The identity rule (src/core/accounts/identity.ts): which team a person signed in with OAuth belongs to. */
import { describe, expect, it } from 'vitest';
import { identityKeyName, teamRefOf, type Identity } from '../../../src/core/accounts/identity.js';

const rule = { teamClaim: 'trawl_team', emailTeams: { 'example.com': 'engineering' } };
const person = (extra: Partial<Identity>): Identity => ({ issuer: 'https://idp.example', subject: 'u-1', claims: {}, ...extra }); // prettier-ignore

describe('the identity rule', () => {
  it('takes the team the claim names (a string, or the first of a list), before the email domain', () => {
    expect(teamRefOf(person({ claims: { trawl_team: 'research' }, email: 'a@example.com' }), rule)).toBe('research');
    expect(teamRefOf(person({ claims: { trawl_team: ['', 'ops', 'x'] } }), rule)).toBe('ops');
    expect(teamRefOf(person({ claims: { groups: 'ops' } }), { ...rule, teamClaim: 'groups' })).toBe('ops');
  });

  it('else maps the email domain, case-insensitively, unless the email is said to be unverified', () => {
    expect(teamRefOf(person({ email: 'a@Example.COM' }), rule)).toBe('engineering');
    expect(() => teamRefOf(person({ email: 'a@example.com', emailVerified: false }), rule)).toThrow(/not verified/);
  });

  it('refuses a person it maps to no team with IDENTITY_NOT_MAPPED, saying what was missing', () => {
    expect(() => teamRefOf(person({ email: 'b@other.org' }), rule)).toThrow(
      expect.objectContaining({ tag: 'IDENTITY_NOT_MAPPED', message: expect.stringMatching(/no "trawl_team" claim and the email domain "other.org" is not listed/) }), // prettier-ignore
    );
    expect(() => teamRefOf(person({ claims: { trawl_team: 42 } }), rule)).toThrow(/u-1@idp.example .* no email/);
  });

  it('names the key by the email, else by the subject at the issuer host, within 100 characters', () => {
    expect(identityKeyName(person({ email: 'a@example.com' }))).toBe('oauth: a@example.com');
    expect(identityKeyName(person({}))).toBe('oauth: u-1@idp.example');
    expect(identityKeyName(person({ subject: 'x'.repeat(300) })).length).toBeLessThanOrEqual(100);
  });
});
