/**
 * Keyless requests paid with x402 through the real REST door, verified and settled by a loopback
 * facilitator speaking the v2 wire format: the 402 challenge (checked with @x402/core's own schemas and
 * header decoders), paying it, refusals and failed settlements, and what a key or an unpriced route gets.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { PaymentRequiredSchema } from '@x402/core/schemas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose/app.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import type { PaymentChallenge, PaymentRequirement, X402Rail } from '../../src/http/x402/protocol.js';
import { createLogger } from '../../src/lib/logger.js';
import { postJson, startTestServer, tempDir, type TestServer } from '../helpers/app.js';
import { storedDoc } from '../helpers/documents.js';
import { makePayment, startFacilitator, TEST_PAYER, TEST_RAIL, type Facilitator } from '../helpers/x402-facilitator.js';

const BASE_SEPOLIA_USDC = TEST_RAIL;
/** A second rail in an 18-decimal token, so each rail's amount is seen to follow its own unit. */
const BASE_DAI: X402Rail = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 120,
  extra: { name: 'Dai Stablecoin', version: '1', decimals: 18 },
};

/** A search of 10 results costs $0.005 (docs/search.md), 20 results $0.01: in USDC units and in DAI's. */
const SEARCH_10 = { usdc: '5000', dai: '5000000000000000' };
const SEARCH_20_USDC = '10000';

let t: TestServer;
let facilitator: Facilitator;

beforeAll(async () => {
  facilitator = await startFacilitator();
  t = await startTestServer({
    x402Rails: JSON.stringify([BASE_SEPOLIA_USDC, BASE_DAI]),
    x402FacilitatorUrl: facilitator.url,
  });
  await t.app.services.documents.upsertMany(
    [
      storedDoc('https://docs.example.com/pooling', 'Connection pooling guide', 'Connection pooling keeps sockets open between requests.'), // prettier-ignore
      storedDoc('https://blog.example.com/pooling', 'Pooling in the client', 'Connection pooling shipped in the new HTTP client.'), // prettier-ignore
    ],
    new Date().toISOString(),
  );
});
afterAll(async () => {
  await t?.close();
  await facilitator?.close();
});

const QUERY = { query: 'connection pooling' };

/** A keyless search, with a payment header when given. */
const keyless = (body: unknown, payment?: string) =>
  postJson(t.url, '/search', body, payment ? { 'PAYMENT-SIGNATURE': payment } : {});

/** The challenge of a keyless request with `body` (it must answer 402). */
async function challengeFor(body: unknown): Promise<PaymentChallenge> {
  const res = await keyless(body);
  expect(res.status).toBe(402);
  return res.body as unknown as PaymentChallenge;
}

const first = (challenge: PaymentChallenge): PaymentRequirement => {
  const requirement = challenge.accepts[0];
  if (!requirement) throw new Error('the challenge accepts nothing');
  return requirement;
};

/** Calls to the facilitator made while `fn` runs, by path. */
async function facilitatorCallsDuring(fn: () => Promise<void>): Promise<{ verify: unknown[]; settle: unknown[] }> {
  const before = facilitator.calls.length;
  await fn();
  const calls = facilitator.calls.slice(before);
  return {
    verify: calls.filter((c) => c.path === '/verify').map((c) => c.body),
    settle: calls.filter((c) => c.path === '/settle').map((c) => c.body),
  };
}

describe('the 402 challenge', () => {
  it('answers a keyless priced request with the envelope, the x402 v2 challenge and the PAYMENT-REQUIRED header', async () => {
    const res = await keyless(QUERY);
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = res.body;
    expect(body).toMatchObject({ tag: 'X402_PAYMENT_REQUIRED', x402Version: 2 });
    expect(body.requestId).toEqual(expect.any(String));
    expect(body.error).toMatch(/Payment required/);
    expect(body.resource).toEqual({
      url: `${t.url}/search`,
      description: expect.stringContaining('POST /search'),
      mimeType: 'application/json',
    });
    expect(body.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:84532',
        amount: SEARCH_10.usdc,
        asset: BASE_SEPOLIA_USDC.asset,
        payTo: BASE_SEPOLIA_USDC.payTo,
        maxTimeoutSeconds: 60,
        extra: { name: 'USDC', version: '2' },
      },
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: SEARCH_10.dai,
        asset: BASE_DAI.asset,
        payTo: BASE_DAI.payTo,
        maxTimeoutSeconds: 120,
        extra: { name: 'Dai Stablecoin', version: '1', decimals: 18 },
      },
    ]);
    // what an x402 client reads: the whole body, and the header, are a v2 PaymentRequired
    const parsed = PaymentRequiredSchema.safeParse(body);
    expect(parsed.error).toBeUndefined();
    const header = res.headers.get('payment-required');
    expect(header).toBeTruthy();
    const decoded = decodePaymentRequiredHeader(header!);
    expect(decoded).toMatchObject({ x402Version: 2, resource: body.resource, accepts: body.accepts });
    expect(decoded.error).toBe(body.error);
    expect(JSON.parse(Buffer.from(header!, 'base64').toString('utf8'))).toEqual({
      x402Version: 2,
      resource: body.resource,
      accepts: body.accepts,
      error: body.error,
    });
  });

  it('prices the request at the most it can cost', async () => {
    const twenty = await challengeFor({ ...QUERY, numResults: 20 });
    expect(first(twenty).amount).toBe(SEARCH_20_USDC);
  });

  it('validates the body before asking for payment', async () => {
    const res = await keyless({ numResults: 5 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ tag: 'INVALID_REQUEST_BODY', error: expect.stringContaining('query') });
    expect(res.headers.get('payment-required')).toBeNull();
  });

  it('does not concern requests with an API key', async () => {
    const calls = await facilitatorCallsDuring(async () => {
      const res = await postJson(t.url, '/search', QUERY, { 'x-api-key': t.key });
      expect(res.status).toBe(200);
      expect((res.body.results as unknown[]).length).toBeGreaterThan(0);
      expect(res.headers.get('payment-response')).toBeNull();
    });
    expect(calls).toEqual({ verify: [], settle: [] });
  });

  it('does not concern unpriced routes: a keyless GET /monitors is 401 with the monitor routes’ {error}', async () => {
    const res = await fetch(`${t.url}/monitors`);
    expect(res.status).toBe(401);
    expect(res.headers.get('payment-required')).toBeNull();
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/Missing API key/);
  });

  it('is 401 INVALID_API_KEY, not a challenge, for a wrong key', async () => {
    const res = await postJson(t.url, '/search', QUERY, { 'x-api-key': 'trawl_nope' });
    expect(res.status).toBe(401);
    expect(res.body.tag).toBe('INVALID_API_KEY');
  });
});

describe('paying', () => {
  it('serves a paid request, settles it once and sends the receipt in PAYMENT-RESPONSE', async () => {
    const requirement = first(await challengeFor(QUERY));
    const payment = makePayment(requirement);
    let res!: Awaited<ReturnType<typeof keyless>>;
    const calls = await facilitatorCallsDuring(async () => {
      res = await keyless(QUERY, payment);
    });
    expect(res.status).toBe(200);
    expect((res.body.results as { url: string }[]).map((r) => r.url)).toContain('https://docs.example.com/pooling');
    const receipt = res.headers.get('payment-response');
    expect(receipt).toBeTruthy();
    const settled = decodePaymentResponseHeader(receipt!);
    expect(settled).toMatchObject({ success: true, payer: TEST_PAYER, network: 'eip155:84532' });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const payload = JSON.parse(Buffer.from(payment, 'base64').toString('utf8')) as unknown;
    const wire = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirement };
    expect(calls).toEqual({ verify: [wire], settle: [wire] });
  });

  it('records the usage under "(x402 payments)"', async () => {
    const requirement = first(await challengeFor(QUERY));
    expect((await keyless(QUERY, makePayment(requirement))).status).toBe(200);
    const lines = await t.app.services.accounts.teams.usage(Date.now() - 86_400_000, null);
    const x402 = lines.find((line) => line.keyName === '(x402 payments)');
    expect(x402).toMatchObject({ keyId: 'x402' });
    expect(x402!.requests).toBeGreaterThanOrEqual(1);
    expect(Object.keys(x402!.byOperation)).toContain('search');
  });

  it('pays on the second rail too', async () => {
    const challenge = await challengeFor(QUERY);
    const dai = challenge.accepts[1]!;
    const res = await keyless(QUERY, makePayment(dai));
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({
      success: true,
      network: 'eip155:8453',
    });
  });

  it('asks again, with the reason, when the facilitator rejects the payment; nothing is settled', async () => {
    const requirement = first(await challengeFor(QUERY));
    facilitator.rejectNext('insufficient_funds', { message: 'balance 0 is below 5000' });
    let res!: Awaited<ReturnType<typeof keyless>>;
    const calls = await facilitatorCallsDuring(async () => {
      res = await keyless(QUERY, makePayment(requirement));
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ tag: 'X402_PAYMENT_REQUIRED', x402Version: 2 });
    expect(res.body.error).toBe('The payment was not accepted: "insufficient_funds".');
    expect(res.body.error).not.toContain('balance 0 is below 5000'); // the facilitator's words: in the log
    expect(res.body.accepts).toHaveLength(2);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(res.body.error);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(calls.verify).toHaveLength(1);
    expect(calls.settle).toEqual([]);
  });

  it('reads the reason from a facilitator that refuses with a 400', async () => {
    const requirement = first(await challengeFor(QUERY));
    facilitator.rejectNext('invalid_exact_evm_payload_signature', { status: 400 });
    const calls = await facilitatorCallsDuring(async () => {
      const res = await keyless(QUERY, makePayment(requirement));
      expect(res.status).toBe(402);
      expect(res.body.error).toContain('invalid_exact_evm_payload_signature');
    });
    expect(calls.settle).toEqual([]);
  });

  it('asks again, with the reason, when settlement fails', async () => {
    const requirement = first(await challengeFor(QUERY));
    facilitator.failSettleNext('transaction_failed', { message: 'nonce already used' });
    let res!: Awaited<ReturnType<typeof keyless>>;
    const calls = await facilitatorCallsDuring(async () => {
      res = await keyless(QUERY, makePayment(requirement));
    });
    expect(res.status).toBe(402);
    expect(res.body.tag).toBe('X402_PAYMENT_REQUIRED');
    expect(res.body.error).toContain('could not be settled');
    expect(res.body.error).toContain('transaction_failed');
    expect(res.body.results).toBeUndefined();
    expect(res.headers.get('payment-response')).toBeNull();
    expect(calls.verify).toHaveLength(1);
    expect(calls.settle).toHaveLength(1);
  });

  it('refuses a payment made for another (cheaper) request without asking the facilitator', async () => {
    const cheaper = first(await challengeFor(QUERY));
    const calls = await facilitatorCallsDuring(async () => {
      const res = await keyless({ ...QUERY, numResults: 20 }, makePayment(cheaper));
      expect(res.status).toBe(402);
      expect(res.body.error).toMatch(/does not answer this challenge/);
      expect(first(res.body as unknown as PaymentChallenge).amount).toBe(SEARCH_20_USDC);
    });
    expect(calls).toEqual({ verify: [], settle: [] });
  });

  it('refuses a payment header that is not a payment', async () => {
    const res = await keyless(QUERY, 'not base64!');
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ tag: 'X402_PAYMENT_REQUIRED', error: expect.stringContaining('not base64') });
  });
});

describe('configuration', () => {
  it.each([
    ['rails without a facilitator', { x402Rails: JSON.stringify([BASE_SEPOLIA_USDC]) }],
    ['a facilitator without rails', { x402FacilitatorUrl: 'http://127.0.0.1:9/' }],
  ])('fails at createApp with %s, naming both settings', (_, flags) => {
    const { dir, cleanup } = tempDir();
    try {
      const config = loadConfig({}, { dataDir: dir, logLevel: 'silent', ...flags });
      let thrown: unknown;
      try {
        void createApp(config, { logger: createLogger('silent') }).close();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toContain('TRAWL_X402_RAILS');
      expect((thrown as Error).message).toContain('TRAWL_X402_FACILITATOR_URL');
    } finally {
      cleanup();
    }
  });

  it('fails at createApp with a facilitator URL that is not http(s), though the HTTP door builds its client', () => {
    const { dir, cleanup } = tempDir();
    try {
      const flags = { x402Rails: JSON.stringify([BASE_SEPOLIA_USDC]), x402FacilitatorUrl: 'ftp://127.0.0.1/x402' };
      const config = loadConfig({}, { dataDir: dir, logLevel: 'silent', ...flags });
      expect(() => void createApp(config, { logger: createLogger('silent') }).close()).toThrow(ConfigError);
    } finally {
      cleanup();
    }
  });
});
