/** The value types settings share: lists, bounded integers, booleans as words, JSON text, IP addresses and CIDR blocks. */
import { isIP } from 'node:net';
import { z } from 'zod';
import '../../lib/zod-messages.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const list = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .or(z.array(z.string()));

/** A whole number from `min` to `max`, given as text (an environment variable, a flag) or as a number. */
export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

/** A setting given as JSON text, parsed; `message` says what it should be when it is not JSON. */
export const jsonText = (message: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
  });

export function isIpOrCidr(entry: string): boolean {
  const [ip, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || !ip) return false;
  const family = isIP(ip);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}
