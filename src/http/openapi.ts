/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the doors validate with (JSON Schema
 * 2020-12, which OpenAPI 3.1 uses as is). Built once per process, on first request.
 */
import { z } from 'zod';
import type { Operation } from '../ops/define-op.js';
import { ErrorEnvelope, SimpleError } from '../schemas/common.schema.js';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');

/** A stream of named events: each an `id:`, an `event:` name and a `data:` line of JSON. */
const NAMED_EVENTS: Json = {
  type: 'string',
  description: 'Server-sent events: `id: <n>`, `event: <name>`, `data: <JSON>`; resume with `Last-Event-ID`.',
};

/** `/monitors/:id` → `/monitors/{id}`. */
export const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function parameters(op: Operation): Json[] {
  const out: Json[] = [];
  for (const [where, shape] of [
    ['path', op.params],
    ['query', op.query],
  ] as const) {
    if (!shape) continue;
    const props = (jsonSchema(shape, 'input').properties ?? {}) as Record<string, Json>;
    for (const [name, schema] of Object.entries(props)) {
      const field = shape.shape[name] as z.ZodType;
      const { description, ...rest } = schema;
      out.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

function errorResponses(op: Operation): Json {
  const ref = { $ref: `#/components/schemas/${op.errorBody === 'simple' ? 'SimpleError' : 'ErrorEnvelope'}` };
  const res = (description: string) => ({ description, content: { 'application/json': { schema: ref } } });
  const out: Json = {
    '400': res('Invalid parameters; the message names the field and the rule.'),
    '401': res('Missing or invalid API key (tag INVALID_API_KEY).'),
    '500': res('Internal error.'),
  };
  if (op.params) out['404'] = res('No such resource.');
  if (op.body) {
    out['413'] = res('Body larger than the configured limit.');
    out['415'] = res('Body is not application/json.');
  }
  if (op.upload) {
    out['413'] = res('File larger than the configured limit.');
    out['415'] = res(`Body is not ${op.upload.mediaType}.`);
  }
  return out;
}

/** One check of `GET /ready`: passed, or failed with why. */
const READY_CHECK = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, detail: { type: 'string' } },
  required: ['ok'],
};

/** `GET /ready`: whether this process can serve now (src/core/status/readiness.ts). */
const READY: Json = {
  operationId: 'ready',
  summary: 'Readiness check',
  description:
    'Whether this process can serve now: the store answers, its schema is this version\'s, no index rebuild is under way, a replica is not too far behind, and it is not stopping. Needs no key. 503 (with Retry-After) names the failing check.', // prettier-ignore
  security: [],
  tags: ['service'],
  responses: Object.fromEntries(
    [
      ['200', 'Ready.'],
      ['503', 'Not ready: route requests to another replica.'],
    ].map(([status, description]) => [
      status,
      {
        description,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                ready: { type: 'boolean' },
                checks: {
                  type: 'object',
                  properties: Object.fromEntries(['draining', 'store', 'schema', 'index', 'replica'].map((c) => [c, READY_CHECK])), // prettier-ignore
                },
              },
              required: ['ready', 'checks'],
            },
          },
        },
      },
    ]),
  ),
};

/** The whole document for `ops`. */
export function buildOpenApi(ops: readonly Operation[], version: string): Json {
  const schemas: Json = {
    ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output'),
    SimpleError: jsonSchema(SimpleError, 'output'),
  };
  const paths: Record<string, Json> = {
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness check',
        description:
          'Answers 200 while the process runs (GET /ready says whether it can serve). Needs no key and reveals nothing private.',
        security: [],
        tags: ['service'],
        responses: {
          '200': {
            description: 'Ready.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { status: { const: 'ok' }, version: { type: 'string' } },
                  required: ['status', 'version'],
                },
              },
            },
          },
        },
      },
    },
    '/ready': { get: READY },
  };
  for (const op of ops) {
    const name = pascal(op.name);
    const operation: Json = {
      operationId: op.name,
      summary: op.title,
      description: op.description,
      tags: [op.capability ?? 'service'], // no scope: any key may call it
      parameters: parameters(op),
      responses: {
        [String(op.successStatus)]: {
          description: 'Success.',
          headers: { 'x-request-id': { schema: { type: 'string' }, description: 'Id of this request.' } },
          content: {
            ...(op.events?.only ? {} : { 'application/json': { schema: { $ref: `#/components/schemas/${name}Response` } } }), // prettier-ignore
            // with the stream flag: `data: <frame>` events, then `data: [DONE]` (docs/synthesis.md)
            ...(op.stream
              ? { 'text/event-stream': { schema: { $ref: `#/components/schemas/${name}StreamFrame` } } }
              : {}),
            // named events (`id:`, `event:`, `data: <JSON>`), when asked for or, for some routes, always
            ...(op.events ? { 'text/event-stream': { schema: NAMED_EVENTS } } : {}),
          },
        },
        ...errorResponses(op),
      },
    };
    schemas[`${name}Response`] = jsonSchema(op.output, 'output');
    if (op.stream) schemas[`${name}StreamFrame`] = jsonSchema(op.stream.frame, 'output');
    if (op.upload) {
      operation.requestBody = {
        required: true,
        description: op.upload.description,
        content: { [op.upload.mediaType]: { schema: { type: 'string' } } },
      };
    }
    if (op.body) {
      schemas[`${name}Request`] = jsonSchema(op.body, 'input');
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Request` } } },
      };
    }
    const path = toOpenApiPath(op.route.path);
    paths[path] = { ...(paths[path] ?? {}), [op.route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trawl',
      version,
      description:
        'Search and web-contents service for programs and coding agents. Beta features need the `Svc-Beta` ' +
        'header (`dynamic-highlights-2026-08-28`, `agent-max-effort-2026-07-27`).',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [
      { name: 'search' },
      { name: 'contents' },
      { name: 'context' },
      { name: 'monitors' },
      { name: 'agent' },
      { name: 'service' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}
