/**
 * Test helper: a loopback x402 facilitator on 127.0.0.1:0 speaking the v2 wire format of the reference
 * one (`POST /verify`, `POST /settle`, `GET /supported`), recording every call; and payments built as an
 * x402 client (@x402/fetch with an EVM signer) builds them. Signatures are not checked: this facilitator
 * decides, by its controls.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentPayloadSchema, PaymentRequirementsSchema } from '@x402/core/schemas';
import type { PaymentRequirement, X402Rail } from '../../src/http/x402/protocol.js';

export interface FacilitatorCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined for a GET). */
  body: unknown;
}

export interface Facilitator {
  /** The base URL (no trailing slash): `${url}/verify`, `${url}/settle`. */
  url: string;
  /** Every request received, in order. */
  calls: FacilitatorCall[];
  /** The bodies received at one path (`/verify` or `/settle`). */
  bodies(path: string): unknown[];
  /** The next `/verify` answers `isValid: false` with this reason (with `status`, as some facilitators send 400). */
  rejectNext(reason: string, options?: { status?: number; message?: string }): void;
  /** The next `/settle` answers `success: false` with this reason. */
  failSettleNext(reason: string, options?: { status?: number; message?: string }): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type Failure = { reason: string; status: number; message: string | undefined };

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null;

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(text);
      }
    });
  });
}

/** What the reference facilitator checks without a chain: the authorization pays the requirement's payTo its amount. */
function mismatch(paymentPayload: Json, requirements: Json): string | undefined {
  const accepted = paymentPayload.accepted;
  if (isRecord(accepted) && (accepted.scheme !== requirements.scheme || accepted.network !== requirements.network)) {
    return 'unsupported_scheme';
  }
  const payload = paymentPayload.payload;
  const auth = isRecord(payload) ? payload.authorization : undefined;
  if (!isRecord(auth)) return undefined;
  if (String(auth.to).toLowerCase() !== String(requirements.payTo).toLowerCase()) {
    return 'invalid_exact_evm_payload_recipient_mismatch';
  }
  const price = requirements.amount ?? requirements.maxAmountRequired;
  if (auth.value !== price) return 'invalid_exact_evm_payload_authorization_value';
  return undefined;
}

const payerOf = (paymentPayload: Json): string | undefined => {
  const payload = paymentPayload.payload;
  const auth = isRecord(payload) ? payload.authorization : undefined;
  return isRecord(auth) && typeof auth.from === 'string' ? auth.from : undefined;
};

/** Starts a facilitator; with `apiKey`, calls without `Authorization: Bearer <apiKey>` get 401. */
export async function startFacilitator(options: { apiKey?: string } = {}): Promise<Facilitator> {
  const calls: FacilitatorCall[] = [];
  let reject: Failure | undefined;
  let failSettle: Failure | undefined;

  const send = (res: http.ServerResponse, status: number, body: unknown) =>
    void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const answer = (res: http.ServerResponse, path: string, body: unknown) => {
    if (!isRecord(body) || typeof body.x402Version !== 'number') {
      return send(res, 400, { error: 'body must be {x402Version, paymentPayload, paymentRequirements}' });
    }
    const payment = PaymentPayloadSchema.safeParse(body.paymentPayload);
    const requirements = PaymentRequirementsSchema.safeParse(body.paymentRequirements);
    if (!payment.success || !requirements.success) {
      const issue = (payment.error ?? requirements.error)?.issues[0];
      return send(res, 400, { error: `invalid request: ${issue?.path.join('.')} ${issue?.message}` });
    }
    const paymentPayload = body.paymentPayload as Json;
    const reqs = body.paymentRequirements as Json;
    const payer = payerOf(paymentPayload);
    const invalid = mismatch(paymentPayload, reqs);
    if (path === '/verify') {
      const failure = reject;
      reject = undefined;
      if (failure) {
        const { reason: invalidReason, status, message: invalidMessage } = failure;
        return send(res, status, { isValid: false, invalidReason, invalidMessage, payer });
      }
      if (invalid) return send(res, 200, { isValid: false, invalidReason: invalid, payer });
      return send(res, 200, { isValid: true, payer });
    }
    const network = reqs.network;
    const failure = failSettle ?? (invalid ? { reason: invalid, status: 200, message: undefined } : undefined);
    failSettle = undefined;
    if (failure) {
      const { reason: errorReason, status, message: errorMessage } = failure;
      return send(res, status, { success: false, errorReason, errorMessage, payer, transaction: '', network });
    }
    send(res, 200, { success: true, payer, transaction: hex(32), network });
  };

  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const body = await readJson(req);
    calls.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(res, 401, { error: 'unauthorized' });
    }
    if (req.method === 'GET' && path === '/supported') {
      const kinds = [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }];
      return send(res, 200, { kinds, extensions: [], signers: {} });
    }
    if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle'))
      return send(res, 404, { error: 'not found' });
    answer(res, path, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const failure = (reason: string, options: { status?: number; message?: string } = {}): Failure => ({
    reason,
    status: options.status ?? 200,
    message: options.message,
  });
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    bodies: (path) => calls.filter((call) => call.path === path).map((call) => call.body),
    rejectNext(reason, options) {
      reject = failure(reason, options);
    },
    failSettleNext(reason, options) {
      failSettle = failure(reason, options);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface PaymentOptions {
  /** The payer's address. Default a fixed test address. */
  from?: string;
  /** The resource paid for, as the client read it from the challenge. */
  resource?: { url: string; description?: string; mimeType?: string };
  /** Unix seconds the authorization is made at. Default now. */
  now?: number;
  /** Fields of the EIP-3009 authorization to replace (e.g. `{ value: '1' }` to underpay). */
  authorization?: Record<string, string>;
}

/** The tests' rail: USDC on Base Sepolia, paid to a fixed address. */
export const TEST_RAIL: X402Rail = {
  scheme: 'exact',
  network: 'eip155:84532',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2' },
};

export const TEST_PAYER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';

/**
 * A well-formed v2 PaymentPayload for `requirement`, as an x402 client builds one for the exact EVM
 * scheme: the chosen requirement echoed in `accepted`, and a transferWithAuthorization (valid from ten
 * minutes ago until `maxTimeoutSeconds` from now, random nonce) with a 65-byte signature.
 */
export function makePaymentPayload(requirement: PaymentRequirement, options: PaymentOptions = {}) {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return {
    x402Version: 2 as const,
    ...(options.resource ? { resource: options.resource } : {}),
    accepted: requirement,
    payload: {
      signature: hex(65),
      authorization: {
        from: options.from ?? TEST_PAYER,
        to: requirement.payTo,
        value: requirement.amount,
        validAfter: String(now - 600),
        validBefore: String(now + requirement.maxTimeoutSeconds),
        nonce: hex(32),
        ...options.authorization,
      },
    },
  };
}

/** The `PAYMENT-SIGNATURE` header value (base64 JSON) of `makePaymentPayload(requirement, options)`. */
export function makePayment(requirement: PaymentRequirement, options: PaymentOptions = {}): string {
  return Buffer.from(JSON.stringify(makePaymentPayload(requirement, options)), 'utf8').toString('base64');
}
