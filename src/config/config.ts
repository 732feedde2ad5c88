/**
 * Configuration: read once from `TRAWL_*` environment variables and CLI flags (flags win), validated with
 * zod, frozen. A bad setting fails fast with a message naming the variable and the flag.
 */
import path from 'node:path';
import envPaths from 'env-paths';
import type { z } from 'zod';
import { isLoopbackHostname } from '../lib/loopback.js';
import { SETTINGS, type Config, type Settings } from './settings.js';

export { SETTINGS, type Config } from './settings.js';

/** Flags as parsed by the CLI, keyed like SETTINGS (`dataDir`, `port`, ...). */
export type ConfigFlags = Partial<Record<keyof Settings, unknown>>;

/** A setting had a bad value; the message names the variable and flag. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * The variable a setting is read from and its value: the main variable, else the first alias set (a
 * name the issue tracker or other tools use). Empty means unset; two names set to different values fail.
 */
function readEnv(env: Record<string, string | undefined>, setting: Settings[keyof Settings]) {
  const names = [setting.env, ...('aliases' in setting ? setting.aliases : [])];
  const set = names.filter((name) => env[name] !== undefined && env[name] !== '');
  const [name] = set;
  const conflict = set.find((other) => env[other] !== env[name!]);
  if (conflict) {
    throw new ConfigError(`Environment variables ${name} and ${conflict} are both set, to different values; set one.`);
  }
  return { name: name ?? setting.env, value: name === undefined ? undefined : env[name] };
}

/** Reads every setting from flags, then env, then its default; throws ConfigError naming the first bad one. */
export function loadConfig(env: Record<string, string | undefined> = {}, flags: ConfigFlags = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Settings, Settings[keyof Settings]][]) {
    const fromFlag = flags[key];
    const fromEnv = readEnv(env, setting);
    const raw = fromFlag ?? fromEnv.value;
    if (raw === undefined) {
      out[key] = key === 'dataDir' ? defaultDataDir(env) : setting.default;
      continue;
    }
    const parsed = (setting.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag !== undefined ? `flag ${setting.flag}` : `environment variable ${fromEnv.name}`;
      const why = parsed.error.issues[0]?.message ?? 'invalid value';
      throw new ConfigError(`Invalid ${source}=${JSON.stringify(raw)}: ${why}. ${setting.doc}`);
    }
    out[key] = parsed.data;
  }
  out.dataDir = path.resolve(out.dataDir as string);
  if (out.mcpKeyless === true && !isLoopbackHostname(out.host as string)) {
    throw new ConfigError(
      `TRAWL_MCP_KEYLESS (--mcp-keyless) needs a loopback listener, since any caller could use /mcp without a key; TRAWL_HOST is ${JSON.stringify(out.host)}. Listen on 127.0.0.1, ::1 or localhost, or turn keyless off.`,
    );
  }
  return Object.freeze(out) as Config;
}

/** The per-user data directory, used when `TRAWL_DATA_DIR` is unset. */
export function defaultDataDir(env: Record<string, string | undefined> = process.env): string {
  // env-paths reads XDG_DATA_HOME / LOCALAPPDATA from process.env; honour an injected env the same way.
  if (process.platform === 'linux' && env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, 'trawl');
  return envPaths('trawl', { suffix: '' }).data;
}
