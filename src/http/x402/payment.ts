/**
 * Keyless requests paid with x402 (REST only). When the operator configured payment rails and a
 * facilitator, a request without an API key to a priced endpoint is validated, then priced at the most
 * it can cost (src/core/accounts/bounds.ts): without a payment it gets 402 `X402_PAYMENT_REQUIRED`
 * with the challenge (the standard envelope plus `x402Version`, `resource`, `accepts`) and the same
 * challenge base64 in `PAYMENT-REQUIRED`; with one (`PAYMENT-SIGNATURE`, or v1 `X-PAYMENT`) the
 * payment is verified by the facilitator, the request served, and the payment settled, the receipt
 * going back in `PAYMENT-RESPONSE`. A payment that fails verification or settlement gets the challenge
 * again, with the facilitator's reason.
 */
import type { Context } from 'hono';
import type { Config } from '../../config/config.js';
import type { ServiceContext } from '../../core/context.js';
import type { Operation } from '../../ops/define-op.js';
import { ServiceError } from '../../errors.js';
import { safeToken } from '../../lib/safe-text.js';
import { HttpError } from '../http-error.js';
import { createFacilitatorClient, type FacilitatorClient, type PostJson } from './facilitator.js';
import {
  encodeHeader,
  matchRequirement,
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_RESPONSE_HEADER,
  paymentChallenge,
  readPayment,
  type PaymentChallenge,
  type X402Rail,
} from './protocol.js';

/** What the door needs to take x402 payments: the rails accepted and the facilitator. */
export interface X402Setup {
  rails: X402Rail[];
  facilitator: FacilitatorClient;
}

/**
 * The x402 setup of the config, over the app's JSON POST client; undefined unless rails and a facilitator
 * are both configured (createApp refuses half a configuration). Throws RangeError on a non-http(s) URL.
 */
export function createX402Setup(config: Config, post: PostJson): X402Setup | undefined {
  if (!config.x402Rails || !config.x402FacilitatorUrl) return undefined;
  const facilitator = createFacilitatorClient({
    url: config.x402FacilitatorUrl,
    apiKey: config.x402FacilitatorApiKey,
    post,
  });
  return { rails: config.x402Rails, facilitator };
}

/** A verified payment: settle it once the request has been served. */
export interface VerifiedPayment {
  /** Settles the payment; its receipt goes in the `PAYMENT-RESPONSE` header. Throws the 402 on failure. */
  settle(): Promise<void>;
}

const challengeError = (challenge: PaymentChallenge, message: string) =>
  new HttpError('X402_PAYMENT_REQUIRED', message, {
    body: { ...challenge },
    headers: {
      [PAYMENT_REQUIRED_HEADER.toLowerCase()]: encodeHeader({ ...challenge, error: message }),
      'cache-control': 'no-store',
    },
  });

/**
 * `call`, whose failure (`SERVICE_UNAVAILABLE`, in Trawl's words) is logged with the facilitator's
 * detail (its address and answer) and answered pointing to that log line.
 */
async function reported<T>(ctx: ServiceContext, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (!(err instanceof ServiceError) || err.tag !== 'SERVICE_UNAVAILABLE') throw err;
    ctx.logger.warn({ reason: (err.cause as Error | undefined)?.message }, 'x402 facilitator failed');
    const message = `${err.message}; the server log has the details under requestId ${ctx.requestId}`;
    throw new ServiceError('SERVICE_UNAVAILABLE', message, { cause: err });
  }
}

/**
 * Requires an x402 payment for `op` with `input` (already validated): throws the 402 challenge when
 * there is none or it does not verify; returns the verified payment otherwise.
 */
export async function requirePayment(
  c: Context,
  setup: X402Setup,
  op: Operation,
  input: unknown,
  maxDollars: number,
  ctx: ServiceContext,
): Promise<VerifiedPayment> {
  const challenge = paymentChallenge({
    resourceUrl: c.req.url,
    description: `${op.title} (${op.route.method} ${op.route.path})`,
    priceDollars: maxDollars,
    rails: setup.rails,
  });
  const payment = readPayment(c.req.raw.headers);
  if (!payment) {
    throw challengeError(
      challenge,
      'Payment required: send an API key (x-api-key), or pay for this request with x402 (the PAYMENT-SIGNATURE header, built from this challenge).',
    );
  }
  const requirement = matchRequirement(payment, challenge.accepts);
  if (!requirement) {
    throw challengeError(
      challenge,
      'The payment does not answer this challenge (scheme, network, amount, asset or payTo differ).',
    );
  }
  const verified = await reported(ctx, setup.facilitator.verify(payment, requirement, ctx.signal));
  if (!verified.isValid) {
    // the facilitator's free text goes to the log; its reason code is named when it is a token
    ctx.logger.info({ reason: verified.invalidReason, detail: verified.invalidMessage }, 'x402 payment refused');
    throw challengeError(
      challenge,
      `The payment was not accepted: ${safeToken(verified.invalidReason ?? 'invalid', 'invalid')}.`,
    );
  }
  ctx.logger.info({ operation: op.name, payer: verified.payer, amount: requirement.amount }, 'x402 payment verified');
  return {
    async settle() {
      const settled = await reported(ctx, setup.facilitator.settle(payment, requirement, ctx.signal));
      if (!settled.success) {
        ctx.logger.info({ reason: settled.errorReason, detail: settled.errorMessage }, 'x402 settlement refused');
        throw challengeError(
          challenge,
          `The payment could not be settled: ${safeToken(settled.errorReason ?? 'failed', 'failed')}.`,
        );
      }
      c.header(PAYMENT_RESPONSE_HEADER, encodeHeader(settled));
    },
  };
}
