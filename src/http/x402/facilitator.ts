/**
 * A client of the operator's x402 facilitator, which verifies and settles the payments keyless requests
 * carry (protocol v2, as @x402/core 2.x speaks it; v1 payloads are passed on as their clients sent them).
 */
import { z } from 'zod';
import { ServiceError } from '../../errors.js';
import type { ApiCallOptions } from '../../fetch/api-client.js';
import { issueText, type PaymentRequirement, type X402Payment } from './protocol.js';

/** The facilitator's `/verify` answer. */
export interface VerifyResult {
  isValid: boolean;
  /** Machine-readable reason when invalid (e.g. `insufficient_funds`). */
  invalidReason?: string;
  /** Human-readable detail, when the facilitator gives one. */
  invalidMessage?: string;
  /** The paying address. */
  payer?: string;
}

/** The facilitator's `/settle` answer; as JSON (base64) it is the `PAYMENT-RESPONSE` header. */
export interface SettleResult {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  /** The on-chain transaction hash (empty when settlement failed). */
  transaction?: string;
  /** CAIP-2 chain id settled on. */
  network?: string;
  /** The amount settled, when the scheme lets it differ from the requirement (`upto`). */
  amount?: string;
}

/** The operator's facilitator, which verifies and settles payments. */
export interface FacilitatorClient {
  /** Asks the facilitator whether `payment` satisfies `requirement` (signature, balance, amounts); nothing moves. */
  verify(payment: X402Payment, requirement: PaymentRequirement, signal?: AbortSignal): Promise<VerifyResult>;
  /** Asks the facilitator to execute the payment on chain. */
  settle(payment: X402Payment, requirement: PaymentRequirement, signal?: AbortSignal): Promise<SettleResult>;
}

/** api-client's `postJson`. */
export type PostJson = <T>(url: string, body: unknown, options?: ApiCallOptions) => Promise<T>;

/** The reference client's default: settling waits for the chain to confirm. */
const DEFAULT_FACILITATOR_TIMEOUT_MS = 90_000;

const optional = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);
const VerifyAnswer = z.object({
  isValid: z.boolean(),
  invalidReason: optional,
  invalidMessage: optional,
  payer: optional,
});
const SettleAnswer = z.object({
  success: z.boolean(),
  errorReason: optional,
  errorMessage: optional,
  payer: optional,
  transaction: optional,
  network: optional,
  amount: optional,
});

/** A failed call in Trawl's words: the HTTP status, or the kind of failure (never the answer's text). */
function failureReason(err: unknown): string {
  const { httpStatusCode: status, tag } = err as { httpStatusCode?: unknown; tag?: unknown };
  if (typeof status === 'number') return `HTTP ${status}`;
  if (tag === 'CRAWL_TIMEOUT') return 'it did not answer in time';
  return 'it could not be reached';
}

/** Drops absent fields so the result (and the `PAYMENT-RESPONSE` built from it) carries only what was said. */
const compact = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/**
 * A refused payment may come back as a 4xx whose body is still the verify or settle answer (the
 * reference client reads it too); api-client keeps only the body's text, in its message.
 */
function answerInError(err: unknown): unknown {
  const match = err instanceof Error ? /answered 4\d\d: (\{.*\})$/.exec(err.message) : null;
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * The request body of `/verify` and `/settle`: `{x402Version, paymentPayload, paymentRequirements}`, the
 * payload as the client sent it. v1 facilitators read the price from `maxAmountRequired`.
 */
const wireBody = (payment: X402Payment, requirement: PaymentRequirement) => ({
  x402Version: payment.x402Version,
  paymentPayload: payment.raw,
  paymentRequirements:
    payment.x402Version === 1 ? { ...requirement, maxAmountRequired: requirement.amount } : requirement,
});

/**
 * A client of the operator's facilitator (`POST {url}/verify`, `POST {url}/settle`), over api-client's
 * `postJson`, so timeouts, size caps and secret-free errors are handled there. `apiKey` goes as a Bearer
 * token. An unreachable, failing or incoherent facilitator throws `SERVICE_UNAVAILABLE` naming it; a
 * refused payment is an answer (`isValid: false`, `success: false`), not an error. Throws RangeError on a
 * URL that is not http(s).
 */
export function createFacilitatorClient(options: {
  url: string;
  apiKey?: string;
  post: PostJson;
  /** Bounds each call. Default 90 s. */
  timeoutMs?: number;
}): FacilitatorClient {
  const base = URL.canParse(options.url) ? new URL(options.url) : undefined;
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
    throw new RangeError('the x402 facilitator URL is not an http(s) URL');
  }
  const root = base.href.replace(/\/+$/, '');
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const timeoutMs = options.timeoutMs ?? DEFAULT_FACILITATOR_TIMEOUT_MS;
  // the caller reads what failed in Trawl's words; the facilitator's address and answer are for the log
  const unavailable = (op: string, reason: string, detail: string, cause?: unknown) =>
    new ServiceError('SERVICE_UNAVAILABLE', `The x402 facilitator could not ${op} the payment (${reason})`, {
      cause: new Error(`the x402 facilitator at ${base.host}: ${detail}`, { cause }),
    });

  const call = async <S extends z.ZodType>(
    op: 'verify' | 'settle',
    schema: S,
    payment: X402Payment,
    requirement: PaymentRequirement,
    signal?: AbortSignal,
  ): Promise<z.output<S>> => {
    let answer: unknown;
    try {
      answer = await options.post<unknown>(`${root}/${op}`, wireBody(payment, requirement), {
        headers,
        timeoutMs,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      answer = answerInError(err);
      if (!schema.safeParse(answer).success)
        throw unavailable(op, failureReason(err), err instanceof Error ? err.message : String(err), err);
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const detail = `its answer is not an x402 ${op} response (${issueText(parsed.error)})`;
      throw unavailable(op, `its answer is not an x402 ${op} response`, detail);
    }
    return parsed.data;
  };

  return {
    verify: async (payment, requirement, signal) =>
      compact(await call('verify', VerifyAnswer, payment, requirement, signal)),
    settle: async (payment, requirement, signal) =>
      compact(await call('settle', SettleAnswer, payment, requirement, signal)),
  };
}
