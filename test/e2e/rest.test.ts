/** The REST door end to end: real HTTP on 127.0.0.1:0, real SQLite, real keys. */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from '../helpers/app.js';
import { OPERATIONS } from '../../src/ops/registry.js';
import { toOpenApiPath } from '../../src/http/openapi.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ maxBodyBytes: 4096 });
});
afterAll(async () => {
  await t.close();
});

const auth = () => ({ 'x-api-key': t.key });

describe('health and request ids', () => {
  it('answers /health without a key, revealing nothing private', async () => {
    const res = await fetch(`${t.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['status', 'store', 'version']);
    expect(body.status).toBe('ok');
    // which store it serves, as a hash: not the data directory's path
    expect(body.store).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(body)).not.toContain(t.dataDir);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('keeps a sane incoming x-request-id and replaces an unsafe one', async () => {
    const kept = await fetch(`${t.url}/health`, { headers: { 'x-request-id': 'trace-abc-12345' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-abc-12345');
    const replaced = await fetch(`${t.url}/health`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('authentication', () => {
  it('rejects a missing key with 401 INVALID_API_KEY in the standard envelope', async () => {
    const res = await postJson(t.url, '/search', { query: 'x' });
    expect(res.status).toBe(401);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'requestId', 'tag']);
    expect(res.body.tag).toBe('INVALID_API_KEY');
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.body.error).toMatch(/x-api-key/);
  });

  it('rejects an unknown key, and a well-formed key with a wrong secret', async () => {
    const forged = t.key.slice(0, -4) + (t.key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const key of ['nope', forged]) {
      const res = await postJson(t.url, '/search', { query: 'x' }, { 'x-api-key': key });
      expect(res.status).toBe(401);
      expect(res.body.tag).toBe('INVALID_API_KEY');
    }
  });

  it('accepts the key as x-api-key and as Authorization: Bearer', async () => {
    const a = await postJson(t.url, '/search', { query: 'x' }, { 'x-api-key': t.key });
    const b = await postJson(t.url, '/search', { query: 'x' }, { authorization: `Bearer ${t.key}` });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
  });

  it('rejects a revoked key at once', async () => {
    const made = await t.app.services.keys.create('short-lived', {}, null);
    expect((await postJson(t.url, '/context', { query: 'x' }, { 'x-api-key': made.key })).status).toBe(200);
    await t.app.services.keys.revoke(made.id, null);
    const after = await postJson(t.url, '/context', { query: 'x' }, { 'x-api-key': made.key });
    expect(after.status).toBe(401);
  });

  it('answers monitor routes with an {error} body', async () => {
    const res = await fetch(`${t.url}/monitors`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/API key/) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('validation errors', () => {
  it('names the field and uses the spec tag', async () => {
    const res = await postJson(t.url, '/search', { query: 'x', numResults: 500 }, auth());
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('NUM_RESULTS_EXCEEDED');
    expect(res.body.error).toMatch(/numResults: must be at most 100/);
  });

  it('rejects parameters that do not exist, naming the replacement', async () => {
    const res = await postJson(t.url, '/search', { query: 'x', includeUrls: ['a.com'] }, auth());
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('INVALID_REQUEST_BODY');
    expect(res.body.error).toMatch(/includeUrls: does not exist; use includeDomains/);
  });

  it('rejects malformed JSON with INVALID_REQUEST_BODY', async () => {
    const res = await postJson(t.url, '/search', '{"query": ', auth());
    expect(res.status).toBe(400);
    expect(res.body.tag).toBe('INVALID_REQUEST_BODY');
    expect(res.body.error).toMatch(/not valid JSON/);
  });

  it('rejects a non-JSON content type with 415', async () => {
    const res = await fetch(`${t.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', ...auth() },
      body: 'query=x',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { tag: string }).tag).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a body over the size limit with 413', async () => {
    const res = await postJson(t.url, '/search', { query: 'x'.repeat(5000) }, auth());
    expect(res.status).toBe(413);
    expect(res.body.tag).toBe('PAYLOAD_TOO_LARGE');
  });

  it('rejects a chunked body (no Content-Length) once it passes the limit', async () => {
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...auth() },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write(`{"query": "${'y'.repeat(3000)}`);
      req.end(`${'z'.repeat(3000)}"}`);
    });
    expect(status.code).toBe(413);
    expect(JSON.parse(status.body)).toMatchObject({ tag: 'PAYLOAD_TOO_LARGE' });
  });

  it('rejects bad query parameters with INVALID_REQUEST_QUERY, in {error} form on monitors', async () => {
    const res = await fetch(`${t.url}/monitors?limit=0`, { headers: auth() });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/limit: must be at least 1/);
    const agent = await fetch(`${t.url}/agent/runs?limit=500`, { headers: auth() });
    expect(agent.status).toBe(400);
    expect(((await agent.json()) as { tag: string }).tag).toBe('INVALID_REQUEST_QUERY');
  });

  it('gates dynamic highlights on the Svc-Beta header (and Exa-Beta, which exa-js sends)', async () => {
    // Cache only: the gate is what is tested, nothing is fetched.
    const body = { urls: ['https://example.com'], highlights: { dynamic: true }, maxAgeHours: -1 };
    const without = await postJson(t.url, '/contents', body, auth());
    expect(without.status).toBe(400);
    expect(without.body.error).toMatch(/highlights\.dynamic: .*Svc-Beta: dynamic-highlights-2026-08-28/);
    for (const header of ['svc-beta', 'exa-beta']) {
      const withIt = await postJson(t.url, '/contents', body, {
        ...auth(),
        [header]: 'x, dynamic-highlights-2026-08-28',
      });
      expect(withIt.status).toBe(200);
      expect(withIt.body.statuses).toEqual([
        {
          id: 'https://example.com',
          status: 'error',
          error: { tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: null },
          message: 'https://example.com is not cached and this request allows the cache only',
        },
      ]);
    }
  });
});

describe('routing', () => {
  it('answers unknown paths with 404 NOT_FOUND', async () => {
    const res = await fetch(`${t.url}/nope`, { headers: auth() });
    expect(res.status).toBe(404);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.tag).toBe('NOT_FOUND');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await fetch(`${t.url}/search`, { headers: auth() });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as { tag: string }).tag).toBe('METHOD_NOT_ALLOWED');
    const monitor = await fetch(`${t.url}/monitors/abc`, { method: 'PUT', headers: auth() });
    expect(monitor.status).toBe(405);
    expect(monitor.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });
});

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document covering every operation', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const op of OPERATIONS) {
      expect(doc.paths[toOpenApiPath(op.route.path)]?.[op.route.method.toLowerCase()]).toBeDefined();
    }
    // a streamed /search: chat-completion chunk frames
    const search = doc.paths['/search']!.post as { responses: Record<string, { content: Record<string, unknown> }> };
    expect(search.responses['200']!.content['text/event-stream']).toEqual({
      schema: { $ref: '#/components/schemas/SearchStreamFrame' },
    });
  });
});
