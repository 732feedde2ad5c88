/**
 * Webhook signatures: every delivery carries `Svc-Signature: t=<unix seconds>,v1=<hex>`, the lowercase
 * hex HMAC-SHA256 of `<t>.<raw body>` under the monitor's webhook secret. Receivers verify it here.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The signature header's name, lower-cased as Node presents incoming headers. */
export const SIGNATURE_HEADER = 'svc-signature';

/** How far a signature's `t` may be from now before it is rejected as a replay (our choice; the spec leaves it open). */
const DEFAULT_TOLERANCE_SECONDS = 300;

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS = /^\d{1,15}$/;

/** A new webhook secret: `whsec_` and 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The digest bytes; the HMAC key is the whole secret string as UTF-8, `whsec_` prefix included. */
function digest(secret: string, rawBody: string, t: number): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
}

/** The `Svc-Signature` value for `rawBody` sent at `unixSeconds` (fractions are dropped): `t=…,v1=…`. */
export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  return `t=${t},v1=${digest(secret, rawBody, t).toString('hex')}`;
}

/** `t` and the well-formed `v1` digests of a header; undefined when there is not exactly one valid `t`. */
function parseHeader(header: string): { t: number; candidates: Buffer[] } | undefined {
  const stamps: string[] = [];
  const candidates: Buffer[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') stamps.push(value);
    // Hex is checked first: Buffer.from(…, 'hex') silently stops at the first bad character.
    else if (key === 'v1' && HEX_DIGEST.test(value)) candidates.push(Buffer.from(value, 'hex'));
  }
  const [stamp] = stamps;
  if (stamps.length !== 1 || stamp === undefined || !UNIX_SECONDS.test(stamp)) return undefined;
  return { t: Number(stamp), candidates };
}

/**
 * True when `header` carries a `v1` signature of `rawBody` under `secret` (any of several may match) and
 * its `t` is within `toleranceSeconds` (default 300) of `nowSeconds` (default the clock). Compares in
 * constant time; never throws, malformed or missing headers are simply false.
 */
export function verifySignature(
  header: string | undefined | null,
  rawBody: string,
  secret: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  try {
    if (typeof header !== 'string' || typeof rawBody !== 'string' || typeof secret !== 'string' || !secret)
      return false;
    const parsed = parseHeader(header);
    if (!parsed || parsed.candidates.length === 0) return false;
    const now = options.nowSeconds ?? Date.now() / 1000;
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!(Math.abs(now - parsed.t) <= tolerance)) return false;
    const expected = digest(secret, rawBody, parsed.t);
    let match = false;
    // Every candidate is compared, so the time taken does not depend on which one matched.
    for (const candidate of parsed.candidates) match = timingSafeEqual(candidate, expected) || match;
    return match;
  } catch {
    return false;
  }
}
