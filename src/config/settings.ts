/**
 * The SETTINGS table, one row per setting: env var, CLI flag, schema, default and the line
 * docs/configuration.md shows; each default is defined here once. The rows live by area in ./settings/.
 * After a change, `node scripts/settings-table.mjs` regenerates that table and the CLI's flags (./flags.ts).
 */
import type { z } from 'zod';
import { AUTH_SETTINGS } from './settings/auth.js';
import { FETCH_SETTINGS } from './settings/fetch.js';
import { PROVIDER_SETTINGS } from './settings/providers.js';
import { RETENTION_SETTINGS } from './settings/retention.js';
import { SERVER_SETTINGS } from './settings/server.js';
import { SERVICE_SETTINGS } from './settings/service.js';
import { TRACING_SETTINGS } from './settings/tracing.js';

export const SETTINGS = {
  ...SERVER_SETTINGS,
  ...FETCH_SETTINGS,
  ...PROVIDER_SETTINGS,
  ...SERVICE_SETTINGS,
  ...AUTH_SETTINGS,
  ...RETENTION_SETTINGS,
  ...TRACING_SETTINGS,
} as const;

export type Settings = typeof SETTINGS;
export type Config = Readonly<{
  [K in keyof Settings]: K extends 'dataDir'
    ? string
    : Settings[K]['default'] extends undefined
      ? z.output<Settings[K]['schema']> | undefined
      : z.output<Settings[K]['schema']>;
}>;
