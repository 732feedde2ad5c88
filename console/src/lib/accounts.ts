/** Keys and teams as `/admin/keys` and `/admin/teams` answer them (src/schemas/admin.schema.ts). */

export interface ApiKey {
  id: string;
  name: string;
  teamId: string;
  /** null: a key made before scopes, which holds every one. */
  scopes: string[] | null;
  admin: boolean;
  budget: { amount: number; period: string } | null;
  qps: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface Team {
  id: string;
  name: string;
  blocked: boolean;
  enterprise: boolean;
  zeroRetention: boolean;
  credits: number | null;
  budget: { amount: number; period: 'day' | 'month' } | null;
  createdAt: string;
}
