/**
 * The x402 wire format (protocol v2, as @x402/core 2.x speaks it): the challenge a priced request without
 * an API key receives, and the payment a retried request carries. ./facilitator.ts verifies and settles
 * payments; ./payment.ts puts both on a request.
 */
import { z } from 'zod';
import { ServiceError } from '../../errors.js';

/** Response header of a 402: base64 of the `PaymentChallenge` JSON (v2 clients read the challenge here). */
export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED';
/** Request header of a paid retry (v2): base64 of the client's `PaymentPayload` JSON. */
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
/** The v1 name of the request header, still accepted. */
export const LEGACY_PAYMENT_HEADER = 'X-PAYMENT';
/** Response header of a paid answer: base64 of the facilitator's settle response JSON. */
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';

/** One payment rail the operator accepts (from settings). */
export interface X402Rail {
  /** Payment scheme, e.g. `exact` (a fixed amount, EIP-3009 transferWithAuthorization on EVM chains). */
  scheme: string;
  /** CAIP-2 chain id, e.g. `eip155:8453` (Base) or `eip155:84532` (Base Sepolia). */
  network: string;
  /** Token contract (or mint) address the price is paid in. */
  asset: string;
  /** The operator's receiving address. */
  payTo: string;
  /** How long a signed payment stays usable, in seconds. */
  maxTimeoutSeconds: number;
  /** Scheme-specific extras sent to clients as is (EVM exact: the token's EIP-712 `name` and `version`); `decimals` (default 6) sets the atomic unit. */
  extra?: Record<string, unknown>;
}

/** One entry of a challenge's `accepts`: what the client must pay on one rail. */
export interface PaymentRequirement {
  scheme: string;
  /** CAIP-2 chain id. */
  network: string;
  /** The price in the asset's atomic units, as a decimal integer string. */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

/** The x402 v2 `PaymentRequired` object: the 402 body (inside the spec's envelope) and the header's content. */
export interface PaymentChallenge {
  x402Version: 2;
  /** The resource being paid for: its URL, a description, and the media type of its answer. */
  resource: { url: string; description: string; mimeType: string };
  /** One requirement per rail, in the operator's order of preference. */
  accepts: PaymentRequirement[];
  /** Protocol extensions keyed by name (e.g. `bazaar`), when any. */
  extensions?: Record<string, unknown>;
}

/** A payment a request carries, decoded. */
export interface X402Payment {
  /** 2 from `PAYMENT-SIGNATURE` clients, 1 from legacy `X-PAYMENT` ones. */
  x402Version: number;
  /** The rail paid on: `accepted.scheme` / `accepted.network` in v2, top-level fields in v1. */
  scheme: string;
  network: string;
  /** v2: the requirement of the challenge the client chose, echoed back. Absent in v1. */
  accepted?: PaymentRequirement;
  /** Scheme-specific proof (EVM exact: `{signature, authorization: {from, to, value, validAfter, validBefore, nonce}}`). */
  payload: Record<string, unknown>;
  /** The decoded header JSON as sent: what the facilitator verifies, byte for byte in meaning. */
  raw: Record<string, unknown>;
}

const DEFAULT_DECIMALS = 6;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `dollars` in atomic units of a `decimals`-place token, rounded up, computed on the decimal digits (0.07 × 10⁶ is 70000, not 70001). */
function atomicAmount(dollars: number, decimals: number): string {
  if (!Number.isFinite(dollars) || dollars < 0) throw new RangeError(`x402 price ${dollars} is not a dollar amount`);
  // String() gives the shortest decimal that round-trips, possibly in exponent form ("1e-7", "1.5e+21").
  const [mantissa = '0', exponent = '0'] = String(dollars).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const digits = BigInt(whole + fraction);
  const shift = decimals - fraction.length + Number(exponent);
  if (shift >= 0) return (digits * 10n ** BigInt(shift)).toString();
  const divisor = 10n ** BigInt(-shift);
  return ((digits + divisor - 1n) / divisor).toString();
}

function decimalsOf(rail: X402Rail): number {
  const decimals = rail.extra?.decimals ?? DEFAULT_DECIMALS;
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new RangeError(`x402 rail ${rail.network} ${rail.asset}: extra.decimals must be an integer from 0 to 36`);
  }
  return decimals;
}

/**
 * The challenge for a request: `amount` in the asset's atomic units from a dollar price (6 decimals,
 * USDC-like, unless `rail.extra.decimals` says otherwise; rounded up). Throws RangeError on a negative
 * price, bad decimals or no rails (x402 requires at least one).
 */
export function paymentChallenge(options: {
  resourceUrl: string;
  description: string;
  /** Media type of the paid answer. Default `application/json`. */
  mimeType?: string;
  priceDollars: number;
  rails: X402Rail[];
  extensions?: Record<string, unknown>;
}): PaymentChallenge {
  if (options.rails.length === 0) throw new RangeError('x402 needs at least one payment rail');
  const accepts = options.rails.map((rail) => ({
    scheme: rail.scheme,
    network: rail.network,
    amount: atomicAmount(options.priceDollars, decimalsOf(rail)),
    asset: rail.asset,
    payTo: rail.payTo,
    maxTimeoutSeconds: rail.maxTimeoutSeconds,
    extra: { ...rail.extra },
  }));
  const resource = {
    url: options.resourceUrl,
    description: options.description,
    mimeType: options.mimeType ?? 'application/json',
  };
  return {
    x402Version: 2,
    resource,
    accepts,
    ...(options.extensions ? { extensions: options.extensions } : {}),
  };
}

/** base64 of `value`'s JSON (UTF-8), the encoding of every x402 header (`PAYMENT-REQUIRED`, `PAYMENT-RESPONSE`). */
export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

const Json = z.record(z.string(), z.unknown());
const Requirement = z.object({
  scheme: z.string().min(1),
  network: z.string().min(1),
  amount: z.string().min(1),
  asset: z.string().min(1),
  payTo: z.string().min(1),
  maxTimeoutSeconds: z.number().positive(),
  extra: Json.nullish().transform((extra) => extra ?? {}),
});
const PaymentHeader = z.discriminatedUnion('x402Version', [
  z.object({ x402Version: z.literal(2), accepted: Requirement, payload: Json }),
  z.object({ x402Version: z.literal(1), scheme: z.string().min(1), network: z.string().min(1), payload: Json }),
]);

const unreadable = (header: string, why: string) =>
  new ServiceError(
    'X402_PAYMENT_REQUIRED',
    `The ${header} header is not an x402 payment (${why}); send the base64 JSON PaymentPayload your x402 client ` +
      `builds from the ${PAYMENT_REQUIRED_HEADER} challenge.`,
  );

function decodeJson(header: string, value: string): unknown {
  const text = value.trim();
  if (!BASE64.test(text)) throw unreadable(header, 'not base64');
  try {
    return JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw unreadable(header, 'its base64 does not decode to JSON');
  }
}

/** What is wrong with a JSON value, from the first issue zod found. */
export function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'malformed';
  if (issue.path[0] === 'x402Version') return 'x402Version must be 1 or 2';
  return issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/**
 * The payment a request carries (v2 `PAYMENT-SIGNATURE`, else v1 `X-PAYMENT`), or undefined when none.
 * Throws `X402_PAYMENT_REQUIRED` saying what is wrong when a header is present but not a payment payload.
 */
export function readPayment(headers: Headers): X402Payment | undefined {
  const v2 = headers.get(PAYMENT_SIGNATURE_HEADER);
  const header = v2 === null ? LEGACY_PAYMENT_HEADER : PAYMENT_SIGNATURE_HEADER;
  const value = v2 ?? headers.get(LEGACY_PAYMENT_HEADER);
  if (value === null) return undefined;
  const json = decodeJson(header, value);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw unreadable(header, 'not a JSON object');
  const parsed = PaymentHeader.safeParse(json);
  if (!parsed.success) throw unreadable(header, issueText(parsed.error));
  const raw = json as Record<string, unknown>;
  const payment = parsed.data;
  if (payment.x402Version === 1) {
    const { scheme, network, payload } = payment;
    return { x402Version: 1, scheme, network, payload, raw };
  }
  const { accepted, payload } = payment;
  return { x402Version: 2, scheme: accepted.scheme, network: accepted.network, accepted, payload, raw };
}

/** EVM addresses are case-insensitive (EIP-55 checksums only vary the case); other chains' are not. */
const sameAddress = (a: string, b: string) =>
  a === b || (EVM_ADDRESS.test(a) && EVM_ADDRESS.test(b) && a.toLowerCase() === b.toLowerCase());

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether what the payment names (the echoed requirement; an exact-scheme authorization's `to` and `value`) agrees with `req`. */
function agrees(payment: X402Payment, req: PaymentRequirement): boolean {
  const accepted = payment.accepted;
  if (accepted) {
    if (accepted.amount !== req.amount) return false;
    if (!sameAddress(accepted.payTo, req.payTo) || !sameAddress(accepted.asset, req.asset)) return false;
  }
  const auth = payment.payload.authorization;
  if (req.scheme !== 'exact' || !isRecord(auth)) return true;
  if (typeof auth.to === 'string' && !sameAddress(auth.to, req.payTo)) return false;
  return typeof auth.value !== 'string' || auth.value === req.amount;
}

/**
 * The requirement of the challenge the payment answers: same scheme and network, and amount, payTo and
 * asset equal wherever the payment names them; undefined when none matches.
 */
export function matchRequirement(payment: X402Payment, accepts: PaymentRequirement[]): PaymentRequirement | undefined {
  return accepts.find(
    (req) => req.scheme === payment.scheme && req.network === payment.network && agrees(payment, req),
  );
}
