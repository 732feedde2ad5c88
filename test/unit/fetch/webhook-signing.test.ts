import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SIGNATURE_HEADER,
  newWebhookSecret,
  signatureHeader,
  verifySignature,
} from '../../../src/fetch/webhook-signing.js';

const secret = 'whsec_test-secret';
const body = '{"type":"monitor.run.completed","id":"evt_1"}';
const now = 1_750_000_000;

describe('webhook signing', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
    expect(SIGNATURE_HEADER).toBe('svc-signature');
  });

  it('formats the header as t=<unix seconds>,v1=<lowercase hex>', () => {
    expect(signatureHeader(secret, body, now)).toMatch(/^t=1750000000,v1=[0-9a-f]{64}$/);
    expect(signatureHeader(secret, body, now + 0.9)).toMatch(/^t=1750000000,/);
  });

  it('matches an HMAC-SHA256 of "<t>.<body>" computed independently', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`, 'utf8').digest('hex');
    expect(signatureHeader(secret, body, now)).toBe(`t=${now},v1=${expected}`);
    const unicode = '{"q":"café – 東京"}';
    const hex = createHmac('sha256', secret)
      .update(Buffer.from(`${now}.${unicode}`, 'utf8'))
      .digest('hex');
    expect(signatureHeader(secret, unicode, now)).toBe(`t=${now},v1=${hex}`);
  });

  it('verifies its own header', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(header, body, secret, { nowSeconds: now })).toBe(true);
    expect(verifySignature(signatureHeader(secret, body, Date.now() / 1000), body, secret)).toBe(true);
  });

  it('rejects a changed body or another secret', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(header, `${body} `, secret, { nowSeconds: now })).toBe(false);
    expect(verifySignature(header, body, 'whsec_other', { nowSeconds: now })).toBe(false);
    expect(verifySignature(header, body, '', { nowSeconds: now })).toBe(false);
  });

  it('rejects a timestamp beyond the tolerance (300 s by default), either way', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(header, body, secret, { nowSeconds: now + 300 })).toBe(true);
    expect(verifySignature(header, body, secret, { nowSeconds: now + 301 })).toBe(false);
    expect(verifySignature(header, body, secret, { nowSeconds: now - 301 })).toBe(false);
    expect(verifySignature(header, body, secret, { nowSeconds: now + 1000, toleranceSeconds: 1000 })).toBe(true);
  });

  it('tolerates spaces, other schemes and several v1 entries of which any may match', () => {
    const v1 = signatureHeader(secret, body, now).split('v1=')[1];
    const stale = signatureHeader('whsec_rotated', body, now).split('v1=')[1];
    const opts = { nowSeconds: now };
    expect(verifySignature(` t = ${now} , v1 = ${v1} `, body, secret, opts)).toBe(true);
    expect(verifySignature(`t=${now},v1=${stale},v1=${v1}`, body, secret, opts)).toBe(true);
    expect(verifySignature(`t=${now},v0=abc,v1=${v1},v2=xyz`, body, secret, opts)).toBe(true);
    expect(verifySignature(`t=${now},v1=${v1?.toUpperCase()}`, body, secret, opts)).toBe(true);
    expect(verifySignature(`t=${now},v1=${stale}`, body, secret, opts)).toBe(false);
  });

  it('rejects malformed headers without throwing', () => {
    const v1 = signatureHeader(secret, body, now).split('v1=')[1] ?? '';
    const opts = { nowSeconds: now };
    for (const header of [
      undefined,
      null,
      '',
      'garbage',
      `v1=${v1}`,
      `t=${now}`,
      `t=,v1=${v1}`,
      `t=abc,v1=${v1}`,
      `t=-${now},v1=${v1}`,
      `t=${now}.5,v1=${v1}`,
      `t=${now},t=${now},v1=${v1}`,
      `t=${now},v1=${v1.slice(0, 62)}`,
      `t=${now},v1=${v1}00`,
      `t=${now},v1=${v1.slice(0, 63)}z`,
      `t=${'9'.repeat(40)},v1=${v1}`,
      '=,=,,==',
    ]) {
      expect(verifySignature(header, body, secret, opts), String(header)).toBe(false);
    }
    expect(verifySignature(`t=${now},v1=${v1}`, undefined as unknown as string, secret, opts)).toBe(false);
  });
});
