import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
} from '@x402/core/http';
import { PaymentPayloadSchema, PaymentRequiredSchema } from '@x402/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeHeader,
  matchRequirement,
  paymentChallenge,
  readPayment,
  type PaymentRequirement,
  type X402Payment,
  type X402Rail,
} from '../../../src/http/x402/protocol.js';
import { createFacilitatorClient } from '../../../src/http/x402/facilitator.js';
import { ServiceError } from '../../../src/errors.js';
import { statusOf } from '../../../src/http/status.js';
import { createApiClient } from '../../../src/fetch/api-client.js';
import {
  makePayment,
  makePaymentPayload,
  startFacilitator,
  TEST_PAYER,
  TEST_RAIL,
  type Facilitator,
} from '../../helpers/x402-facilitator.js';

const BASE_SEPOLIA = TEST_RAIL;
const BASE: X402Rail = {
  ...BASE_SEPOLIA,
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
};

const challengeFor = (priceDollars: number, rails: X402Rail[] = [BASE_SEPOLIA]) =>
  paymentChallenge({ resourceUrl: 'https://trawl.test/search', description: 'Search the web', priceDollars, rails });

const headersWith = (name: string, value: string) => new Headers({ [name]: value });

function paymentFor(requirement: PaymentRequirement, options?: Parameters<typeof makePayment>[1]): X402Payment {
  const payment = readPayment(headersWith('PAYMENT-SIGNATURE', makePayment(requirement, options)));
  if (!payment) throw new Error('no payment read');
  return payment;
}

function thrown(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('did not throw');
}

describe('x402 payment challenge', () => {
  it('validates against @x402/core as a v2 PaymentRequired, with the spec envelope around it', () => {
    const challenge = challengeFor(0.005);
    const body = { requestId: 'req_1', error: 'Payment required', tag: 'X402_PAYMENT_REQUIRED', ...challenge };
    const parsed = PaymentRequiredSchema.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(challenge).toEqual({
      x402Version: 2,
      resource: { url: 'https://trawl.test/search', description: 'Search the web', mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '5000',
          asset: BASE_SEPOLIA.asset,
          payTo: BASE_SEPOLIA.payTo,
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
  });

  it('carries every rail, a given mime type and extensions', () => {
    const challenge = paymentChallenge({
      resourceUrl: 'https://trawl.test/contents',
      description: 'Page contents',
      mimeType: 'text/event-stream',
      priceDollars: 0.001,
      rails: [BASE, BASE_SEPOLIA],
      extensions: { bazaar: { discoverable: true } },
    });
    expect(PaymentRequiredSchema.safeParse(challenge).success).toBe(true);
    expect(challenge.accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:84532']);
    expect(challenge.resource.mimeType).toBe('text/event-stream');
    expect(challenge.extensions).toEqual({ bazaar: { discoverable: true } });
  });

  it('converts dollars to atomic units exactly, rounding up, with the rail decimals', () => {
    const amount = (price: number, extra?: Record<string, unknown>) =>
      challengeFor(price, [{ ...BASE_SEPOLIA, extra }]).accepts[0]?.amount;
    expect(amount(0.005)).toBe('5000');
    expect(amount(0.07)).toBe('70000'); // 0.07 * 1e6 is 70000.00000000001 in floating point
    expect(amount(1.1)).toBe('1100000');
    expect(amount(12)).toBe('12000000');
    expect(amount(0)).toBe('0');
    expect(amount(0.0000001)).toBe('1'); // a tenth of an atomic unit rounds up
    expect(amount(0.0012345)).toBe('1235');
    expect(amount(0.005, { decimals: 18 })).toBe('5000000000000000');
    expect(amount(0.015, { decimals: 2 })).toBe('2');
    expect(amount(3, { decimals: 0 })).toBe('3');
    expect(() => amount(-1)).toThrow(RangeError);
    expect(() => amount(0.01, { decimals: 'six' })).toThrow(/decimals/);
    expect(() => challengeFor(0.01, [])).toThrow(/at least one/);
  });
});

describe('x402 headers', () => {
  it('encodes a header @x402/core decodes back to the same challenge', () => {
    const challenge = challengeFor(0.005);
    const header = encodeHeader(challenge);
    expect(header).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodePaymentRequiredHeader(header)).toEqual(challenge);
    const unicode = { description: 'Café – ☕' };
    expect(JSON.parse(Buffer.from(encodeHeader(unicode), 'base64').toString('utf8'))).toEqual(unicode);
  });

  it('makes payments that validate as v2 PaymentPayloads and decode with @x402/core', () => {
    const requirement = challengeFor(0.005).accepts[0]!;
    const resource = { url: 'https://trawl.test/search', description: 'Search the web', mimeType: 'application/json' };
    const payload = makePaymentPayload(requirement, { resource });
    const parsed = PaymentPayloadSchema.safeParse(payload);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const decoded = decodePaymentSignatureHeader(makePayment(requirement));
    expect(decoded).toMatchObject({ x402Version: 2, accepted: requirement });
    expect(decoded.payload).toMatchObject({
      signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
      authorization: { from: TEST_PAYER, to: requirement.payTo, value: '5000', nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/) }, // prettier-ignore
    });
  });

  it('reads a v2 PAYMENT-SIGNATURE header', () => {
    const requirement = challengeFor(0.005).accepts[0]!;
    const header = makePayment(requirement);
    const payment = readPayment(headersWith('payment-signature', header));
    expect(payment).toMatchObject({ x402Version: 2, scheme: 'exact', network: 'eip155:84532', accepted: requirement });
    expect(payment?.raw).toEqual(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    expect(payment?.payload.authorization).toMatchObject({ value: '5000', to: requirement.payTo });
  });

  it('reads a v1 X-PAYMENT header, and prefers PAYMENT-SIGNATURE when both come', () => {
    const v1 = {
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: { signature: '0xabc', authorization: { from: TEST_PAYER, to: BASE_SEPOLIA.payTo, value: '5000' } },
    };
    const payment = readPayment(headersWith('X-PAYMENT', encodeHeader(v1)));
    expect(payment).toEqual({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: v1.payload, raw: v1 });
    expect(payment?.accepted).toBeUndefined();
    const both = new Headers({ 'x-payment': encodeHeader(v1), 'payment-signature': makePayment(challengeFor(0.005).accepts[0]!) }); // prettier-ignore
    expect(readPayment(both)?.x402Version).toBe(2);
  });

  it('returns undefined without a payment header', () => {
    expect(readPayment(new Headers())).toBeUndefined();
    expect(readPayment(new Headers({ authorization: 'Bearer x', 'payment-response': 'e30=' }))).toBeUndefined();
  });

  it('refuses garbage with X402_PAYMENT_REQUIRED saying what is wrong', () => {
    const cases: [string, string, RegExp][] = [
      ['PAYMENT-SIGNATURE', 'not base64 at all!', /PAYMENT-SIGNATURE header is not an x402 payment \(not base64\)/],
      ['PAYMENT-SIGNATURE', '', /not base64/],
      ['PAYMENT-SIGNATURE', Buffer.from('{oops').toString('base64'), /does not decode to JSON/],
      ['PAYMENT-SIGNATURE', encodeHeader([1, 2]), /not a JSON object/],
      ['PAYMENT-SIGNATURE', encodeHeader({ x402Version: 3, payload: {} }), /x402Version must be 1 or 2/],
      ['PAYMENT-SIGNATURE', encodeHeader({ x402Version: 2, payload: {} }), /accepted/],
      ['X-PAYMENT', encodeHeader({ x402Version: 1, scheme: 'exact', payload: {} }), /X-PAYMENT header .*network/],
    ];
    for (const [name, value, message] of cases) {
      const err = thrown(() => readPayment(headersWith(name, value)));
      expect(err.tag).toBe('X402_PAYMENT_REQUIRED');
      expect(statusOf(err.tag)).toBe(402);
      expect(err.message).toMatch(message);
      expect(err.message).toMatch(/PAYMENT-REQUIRED challenge/);
    }
  });
});

describe('x402 requirement matching', () => {
  const [onBase, onSepolia] = challengeFor(0.005, [BASE, BASE_SEPOLIA]).accepts as [PaymentRequirement, PaymentRequirement]; // prettier-ignore

  it('picks the rail the payment was made on', () => {
    expect(matchRequirement(paymentFor(onSepolia), [onBase, onSepolia])).toBe(onSepolia);
    expect(matchRequirement(paymentFor(onBase), [onBase, onSepolia])).toBe(onBase);
  });

  it('treats EVM addresses case-insensitively', () => {
    const lower = { ...onSepolia, payTo: onSepolia.payTo.toLowerCase(), asset: onSepolia.asset.toLowerCase() };
    expect(matchRequirement(paymentFor(lower), [onBase, onSepolia])).toBe(onSepolia);
  });

  it('refuses a payment for another amount, payee, asset or rail', () => {
    const accepts = [onBase, onSepolia];
    expect(matchRequirement(paymentFor({ ...onSepolia, amount: '4999' }), accepts)).toBeUndefined();
    expect(matchRequirement(paymentFor({ ...onSepolia, payTo: `0x${'1'.repeat(40)}` }), accepts)).toBeUndefined();
    expect(matchRequirement(paymentFor({ ...onSepolia, asset: onBase.asset }), accepts)).toBeUndefined();
    expect(matchRequirement(paymentFor({ ...onSepolia, network: 'eip155:1' }), accepts)).toBeUndefined();
    expect(matchRequirement(paymentFor({ ...onSepolia, scheme: 'upto' }), accepts)).toBeUndefined();
    // The echoed requirement is right but the signed authorization pays less.
    expect(matchRequirement(paymentFor(onSepolia, { authorization: { value: '1' } }), accepts)).toBeUndefined();
  });

  it('matches a v1 payment by scheme and network and its authorization', () => {
    const legacy = { ...onSepolia, network: 'base-sepolia' };
    const v1 = (value: string) => ({
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: { signature: '0xabc', authorization: { to: onSepolia.payTo, value } },
    });
    const read = (body: unknown) => readPayment(headersWith('X-PAYMENT', encodeHeader(body)))!;
    expect(matchRequirement(read(v1('5000')), [onBase, legacy])).toBe(legacy);
    expect(matchRequirement(read(v1('500')), [onBase, legacy])).toBeUndefined();
  });
});

describe('x402 facilitator client', () => {
  const API_KEY = 'fac-secret-0123456789';
  let facilitator: Facilitator;
  const api = createApiClient();
  let client: ReturnType<typeof createFacilitatorClient>;
  const requirement = challengeFor(0.005).accepts[0]!;

  beforeAll(async () => {
    facilitator = await startFacilitator({ apiKey: API_KEY });
    client = createFacilitatorClient({ url: `${facilitator.url}/`, apiKey: API_KEY, post: api.postJson, timeoutMs: 5_000 }); // prettier-ignore
  });
  afterAll(async () => {
    await facilitator.close();
    await api.close();
  });

  it('verifies a good payment, sending exactly the v2 body with the key', async () => {
    const payment = paymentFor(requirement);
    const before = facilitator.calls.length;
    expect(await client.verify(payment, requirement)).toEqual({ isValid: true, payer: TEST_PAYER });
    const call = facilitator.calls[before]!;
    expect(call).toMatchObject({ method: 'POST', path: '/verify' });
    expect(call.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.body).toEqual({ x402Version: 2, paymentPayload: payment.raw, paymentRequirements: requirement });
    expect(PaymentPayloadSchema.safeParse((call.body as { paymentPayload: unknown }).paymentPayload).success).toBe(
      true,
    );
  });

  it('returns a rejection as an answer with its reason', async () => {
    facilitator.rejectNext('insufficient_funds', { message: 'balance 12 < 5000' });
    expect(await client.verify(paymentFor(requirement), requirement)).toEqual({
      isValid: false,
      invalidReason: 'insufficient_funds',
      invalidMessage: 'balance 12 < 5000',
      payer: TEST_PAYER,
    });
    // Some facilitators send the rejection with a 400; it is still an answer.
    facilitator.rejectNext('invalid_exact_evm_payload_signature', { status: 400 });
    expect(await client.verify(paymentFor(requirement), requirement)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_signature',
    });
    // The loopback facilitator also checks the authorization against the requirement, as real ones do.
    const underpaid = paymentFor(requirement, { authorization: { value: '1' } });
    expect(await client.verify(underpaid, requirement)).toMatchObject({ isValid: false });
  });

  it('settles, answering the transaction and network', async () => {
    const payment = paymentFor(requirement);
    const result = await client.settle(payment, requirement);
    expect(result).toEqual({
      success: true,
      payer: TEST_PAYER,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: 'eip155:84532',
    });
    // The PAYMENT-RESPONSE header of the paid answer, as @x402/fetch reads it.
    expect(decodePaymentResponseHeader(encodeHeader(result))).toEqual(result);
    expect(facilitator.bodies('/settle').at(-1)).toEqual({
      x402Version: 2,
      paymentPayload: payment.raw,
      paymentRequirements: requirement,
    });
  });

  it('returns a failed settlement as an answer with its reason', async () => {
    facilitator.failSettleNext('transaction_failed');
    expect(await client.settle(paymentFor(requirement), requirement)).toEqual({
      success: false,
      errorReason: 'transaction_failed',
      payer: TEST_PAYER,
      transaction: '',
      network: 'eip155:84532',
    });
    facilitator.failSettleNext('invalid_transaction_state', { status: 400 });
    expect(await client.settle(paymentFor(requirement), requirement)).toMatchObject({
      success: false,
      errorReason: 'invalid_transaction_state',
    });
  });

  it('sends a v1 payment with its version and maxAmountRequired', async () => {
    const v1 = { x402Version: 1, scheme: 'exact', network: 'eip155:84532', payload: { signature: '0xabc' } };
    const payment = readPayment(headersWith('X-PAYMENT', encodeHeader(v1)))!;
    await client.verify(payment, requirement).catch(() => undefined);
    expect(facilitator.bodies('/verify').at(-1)).toMatchObject({
      x402Version: 1,
      paymentPayload: v1,
      paymentRequirements: { ...requirement, maxAmountRequired: '5000' },
    });
  });

  it('says what failed when the facilitator refuses the key, is down or answers nonsense; its address and answer go to the cause for the log', async () => {
    const payment = paymentFor(requirement);
    const keyless = createFacilitatorClient({ url: facilitator.url, apiKey: 'wrong', post: api.postJson });
    const refused = await keyless.verify(payment, requirement).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).tag).toBe('SERVICE_UNAVAILABLE');
    expect((refused as ServiceError).message).toBe('The x402 facilitator could not verify the payment (HTTP 401)');
    expect(((refused as ServiceError).cause as Error).message).toMatch(/x402 facilitator at 127\.0\.0\.1:\d+: .*401/);

    const down = await startFacilitator();
    const downUrl = down.url;
    await down.close();
    const gone = createFacilitatorClient({ url: downUrl, apiKey: API_KEY, post: api.postJson });
    const err = await gone.settle(payment, requirement).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(statusOf((err as ServiceError).tag)).toBe(500);
    expect((err as ServiceError).message).toBe(
      'The x402 facilitator could not settle the payment (it could not be reached)',
    );
    expect(((err as ServiceError).cause as Error).message).toMatch(/x402 facilitator at 127\.0\.0\.1:\d+/);
    expect(((err as ServiceError).cause as Error).message).not.toContain(API_KEY);

    const odd = createFacilitatorClient({
      url: facilitator.url,
      post: async <T>() => ({ valid: 'yes' }) as T,
    });
    await expect(odd.verify(payment, requirement)).rejects.toThrow(/its answer is not an x402 verify response/);
  });

  it('refuses a facilitator URL that is not http(s)', () => {
    expect(() => createFacilitatorClient({ url: 'ftp://x', post: api.postJson })).toThrow(RangeError);
    expect(() => createFacilitatorClient({ url: 'not a url', post: api.postJson })).toThrow(/http\(s\)/);
  });
});
