/** /admin: teams, keys, credits, usage and audit (Trawl's own routes, not the spec's; docs/accounts.md). */
import { z } from 'zod';
import { SCOPES } from '../core/access/scopes.js';
import { Timestamp, wireObject } from './common.schema.js';

const Dollars = z.number().min(0).max(1_000_000_000).describe('Dollars.');
const Period = z.enum(['day', 'month']).describe('UTC calendar day or month.');
const Budget = wireObject({ amount: Dollars, period: Period });
export const Scope = z
  .enum(SCOPES)
  .describe("`admin:team`: its own team's keys, usage and audit; `admin`: every team, credits, flags, status.");
const TeamName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"')
  .describe('Team name (unique).');

export const Team = z.object({
  id: z.string(),
  name: z.string(),
  blocked: z.boolean(),
  enterprise: z.boolean(),
  zeroRetention: z.boolean(),
  credits: z.number().nullable().describe('Credits left in dollars; null: no credit limit.'),
  budget: z.object({ amount: z.number(), period: Period }).nullable(),
  createdAt: Timestamp,
});
export const TeamList = z.object({ data: z.array(Team) });

export const CreateTeamRequest = wireObject({
  name: TeamName,
  enterprise: z.boolean().optional().describe('May use compliance "hipaa".'),
  zeroRetention: z.boolean().optional().describe('Keep none of its requests’ content (docs/accounts.md).'),
  credits: Dollars.optional().describe('Start with these credits; omitted: no credit limit.'),
  budget: Budget.optional(),
});

export const UpdateTeamRequest = wireObject({
  blocked: z.boolean().optional(),
  enterprise: z.boolean().optional(),
  zeroRetention: z.boolean().optional(),
  credits: Dollars.nullable().optional().describe('Set the credits; null removes the credit limit.'),
  budget: Budget.nullable().optional().describe('null removes the budget.'),
});

export const TeamParams = z.object({ team: z.string().min(1).max(100).describe('Team name or id.') });
export const AddCreditsRequest = wireObject({ amount: Dollars.refine((n) => n > 0, 'must be more than 0') });

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  teamId: z.string(),
  scopes: z
    .array(z.string())
    .nullable()
    .describe('null: every scope, admin included (a key made before keys were least-privilege).'),
  admin: z.boolean().describe('Whether the key holds `admin`: it administers every team.'),
  budget: z.object({ amount: z.number(), period: z.string() }).nullable(),
  qps: z.number().nullable(),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
});
export const CreatedApiKey = ApiKey.extend({ key: z.string().describe('The key; shown only here.') });
export const ApiKeyList = z.object({ data: z.array(ApiKey) });

export const CreateKeyRequest = wireObject({
  name: z.string().min(1).max(100),
  team: z.string().min(1).max(100).optional().describe("Team name or id; default: the calling key's team."),
  scopes: z
    .array(Scope)
    .min(1)
    .optional()
    .describe('What the key may call; omitted: every scope but `admin:team` and `admin`.'),
  budget: Budget.optional(),
  qps: z.number().min(0).max(100_000).optional().describe('Requests per second; omitted: the operator default.'),
});
export const KeyParams = z.object({ id: z.string().min(1).max(200).describe('Key id.') });
export const UpdateKeyRequest = wireObject({
  scopes: z.array(Scope).min(1).describe('The scopes the key holds from now on (replacing its own).'),
});

export const AuditQuery = z.object({
  team: z.string().min(1).max(100).optional().describe('Team name or id (an operator key; default: every team).'),
  cursor: z.string().max(200).optional().describe('The `nextCursor` of the previous page.'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export const AuditRecord = z.object({
  at: Timestamp,
  teamId: z.string().describe('The team acted on.'),
  actor: z
    .object({ keyId: z.string().nullable(), teamId: z.string().nullable() })
    .describe('The key that acted, and its team; both null: the local process (the CLI).'),
  action: z.string().describe('keys.create, keys.revoke, keys.update, teams.create, teams.update, teams.credits.'),
  target: z.string().describe('The key id or team id acted on.'),
  detail: z.record(z.string(), z.unknown()).nullable().describe('What changed.'),
});
export const AuditList = z.object({
  data: z.array(AuditRecord),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

export const UsageQuery = z.object({
  days: z.coerce.number().int().min(1).max(366).default(30).describe('The last N UTC days, today included.'),
});
export const UsageReport = z.object({
  since: z.string().describe('First day counted (UTC).'),
  data: z.array(
    z.object({
      teamId: z.string(),
      team: z.string(),
      keyId: z.string().nullable().describe('null: the whole team.'),
      keyName: z.string().nullable(),
      requests: z.int(),
      spent: z.number().describe('Dollars.'),
      byOperation: z.record(z.string(), z.number()),
    }),
  ),
});
