/**
 * The authorization server's routes under hostile input (TRAWL_OAUTH=on, registration on): the
 * authorization, token, revocation and registration endpoints, the metadata, and the sign-in and consent
 * forms, each sent a seeded sample (FUZZ_SEED, FUZZ_RUNS) of plausible, mutated and raw requests. The
 * rule: no 5xx, an OAuth error body (`{error}`, RFC 6749) on every 4xx of the JSON endpoints, each answer
 * within 2 s, /health answering and Object.prototype clean.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { FUZZ_CONCURRENCY, fuzzRuns, fuzzSeed } from './env.js';
import { BOUNDARY_VALUES, HOSTILE, rawBody, toJsonText, UNICODE_EDGES } from './hostile.js';

const seed = fuzzSeed();
const numRuns = fuzzRuns(150);
console.log(`fuzz (OAuth): FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`);
const MAX_MS = 2000;

let t: TestServer;
let clientId = '';
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  t = await startTestServer({ oauth: 'on', oauthDcr: true });
  const reg = await fetch(`${t.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], application_type: 'native' }),
  });
  clientId = ((await reg.json()) as { client_id: string }).client_id;
});
afterAll(() => t?.close());

/** A form or query value: plausible for the field, or hostile. */
const value = (plausible: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...plausible), weight: 4 },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
    { arbitrary: fc.constantFrom(...UNICODE_EDGES), weight: 1 },
    { arbitrary: fc.constantFrom(...BOUNDARY_VALUES).map((v) => String(v)), weight: 1 },
    { arbitrary: fc.constantFrom('a'.repeat(70_000), '%00', '../../etc/passwd', '<script>x</script>'), weight: 1 },
  );

const FIELDS: Record<string, string[]> = {
  response_type: ['code', 'token', 'id_token', 'code token'],
  client_id: ['CLIENT', 'https://127.0.0.1:1/c.json', 'https://169.254.169.254/latest/meta-data', 'http://x/y'],
  redirect_uri: [REDIRECT, 'http://127.0.0.1:1/other', 'javascript:alert(1)', 'https://evil.example/cb'],
  scope: ['search', 'openid offline_access', 'admin', 'search contents monitors agent context'],
  state: ['s'],
  code_challenge: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', ''],
  code_challenge_method: ['S256', 'plain'],
  resource: ['RESOURCE', 'https://elsewhere.example/mcp', 'urn:x'],
  prompt: ['login', 'consent', 'none'],
  grant_type: ['authorization_code', 'refresh_token', 'client_credentials', 'password', 'implicit'],
  code: ['abc', ''],
  code_verifier: ['x'.repeat(43)],
  refresh_token: ['abc'],
  token: ['abc'],
  token_type_hint: ['refresh_token', 'access_token'],
  csrf: ['abc', ''],
  key: ['trawl_0123456789ab_' + 'x'.repeat(43), 'nope'],
  decision: ['allow', 'deny'],
  __proto__: ['x'],
};

const fill = (v: string) => v.replace('CLIENT', clientId).replace('RESOURCE', `${t.url}/mcp`);

/** Some of `names`, each with a value. */
const params = (names: string[]) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: names.length })
    .chain((chosen) =>
      fc.tuple(...chosen.map((n) => value(FIELDS[n] ?? ['x']).map((v) => [n, fill(v)] as [string, string]))),
    );

interface Case {
  method: 'GET' | 'POST';
  path: string;
  query?: [string, string][];
  form?: [string, string][];
  raw?: { text: string; contentType?: string };
}

const AUTH = Object.keys(FIELDS).slice(0, 10);
const uid = fc.oneof(fc.constantFrom('nope', '..%2F..', '%00', 'a'.repeat(3000)), fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent)); // prettier-ignore

const ENDPOINTS: Record<string, fc.Arbitrary<Case>> = {
  'GET /oauth/auth': params(AUTH).map((query) => ({ method: 'GET', path: '/oauth/auth', query })),
  'POST /oauth/token': fc.oneof(
    params(['grant_type', 'code', 'code_verifier', 'redirect_uri', 'client_id', 'refresh_token', 'resource', 'scope']).map((form) => ({ method: 'POST' as const, path: '/oauth/token', form })), // prettier-ignore
    rawBody.map((b) => ({ method: 'POST' as const, path: '/oauth/token', raw: { text: b.raw!, contentType: b.contentType } })), // prettier-ignore
  ),
  'POST /oauth/revoke': params(['token', 'token_type_hint', 'client_id']).map((form) => ({ method: 'POST', path: '/oauth/revoke', form })), // prettier-ignore
  'POST /oauth/reg': fc
    .oneof(HOSTILE['wrong-type'], HOSTILE.huge, HOSTILE.deep, HOSTILE.unicode, HOSTILE.proto, HOSTILE.boundary)
    .map((hostile) => ({
      // prettier-ignore
      method: 'POST' as const,
      path: '/oauth/reg',
      raw: { text: toJsonText({ redirect_uris: [REDIRECT], client_name: hostile, application_type: 'native' }), contentType: 'application/json' }, // prettier-ignore
    })),
  'GET /oauth/interaction/:uid': uid.map((u) => ({ method: 'GET', path: `/oauth/interaction/${u}` })),
  'POST /oauth/interaction/:uid/login': fc.tuple(uid, params(['csrf', 'key', '__proto__'])).map(([u, form]) => ({ method: 'POST', path: `/oauth/interaction/${u}/login`, form })), // prettier-ignore
  'POST /oauth/interaction/:uid/consent': fc.tuple(uid, params(['csrf', 'decision'])).map(([u, form]) => ({ method: 'POST', path: `/oauth/interaction/${u}/consent`, form })), // prettier-ignore
  'GET /.well-known/oauth-authorization-server/oauth': params(['scope', 'state']).map((query) => ({ method: 'GET', path: '/.well-known/oauth-authorization-server/oauth', query })), // prettier-ignore
};

const JSON_ERRORS = new Set(['POST /oauth/token', 'POST /oauth/revoke', 'POST /oauth/reg']);

async function send(c: Case): Promise<{ status: number; body: string; contentType: string; ms: number }> {
  const started = performance.now();
  const query = c.query?.length ? `?${new URLSearchParams(c.query)}` : '';
  const body = c.form ? new URLSearchParams(c.form).toString() : c.raw?.text;
  const contentType = c.form ? 'application/x-www-form-urlencoded' : (c.raw?.contentType ?? 'application/json');
  const res = await fetch(`${t.url}${c.path}${query}`, {
    method: c.method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, body: text, contentType: res.headers.get('content-type') ?? '', ms: performance.now() - started }; // prettier-ignore
}

describe('the authorization server under fuzzed input', () => {
  it(
    'answers every case without a 5xx, OAuth errors in their form, within 2 s, and stays up',
    { timeout: 240_000 },
    async () => {
      const failures: string[] = [];
      let cases = 0;
      for (const [name, arbitrary] of Object.entries(ENDPOINTS)) {
        const sample = fc.sample(arbitrary, { seed, numRuns });
        for (let i = 0; i < sample.length && failures.length === 0; i += FUZZ_CONCURRENCY) {
          const batch = sample.slice(i, i + FUZZ_CONCURRENCY);
          const answers = await Promise.all(batch.map(send));
          answers.forEach((a, j) => {
            cases++;
            const which = `${name} case #${i + j}`;
            if (a.status >= 500) failures.push(`${which}: ${a.status} ${a.body.slice(0, 200)}`);
            if (a.ms > MAX_MS) failures.push(`${which}: ${Math.round(a.ms)} ms`);
            if (JSON_ERRORS.has(name) && a.status >= 400 && a.status !== 404) {
              const parsed = a.contentType.includes('json') ? (JSON.parse(a.body) as { error?: unknown }) : {};
              if (typeof parsed.error !== 'string') failures.push(`${which}: ${a.status} without an OAuth error body`);
            }
          });
          if (i % 25 === 0) expect((await fetch(`${t.url}/health`)).status).toBe(200);
        }
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      console.log(`fuzz (OAuth): %d cases`, cases);
      expect(failures, `replay with FUZZ_SEED=${seed} FUZZ_RUNS=${numRuns}`).toEqual([]);
    },
  );
});
