/** GET /status: the installation's status for an admin key, as `trawl doctor --json` prints it (docs/configuration.md). */
import { z } from 'zod';

const Count = z.number().int().min(0);

const Check = z.object({
  name: z
    .string()
    .describe(
      'searxng, brave, upstream, model, embeddings, browser, codeModel or listener; sign-in: server, issuer or oidc.',
    ),
  configured: z.boolean(),
  state: z
    .enum(['ok', 'failed', 'unverified', 'skipped', 'off'])
    .describe(
      'ok; failed: configured and broken; unverified: answers, but the free check could not confirm it works; ' +
        'skipped: not checked, since any call is billed; off: not configured, or nothing listens.',
    ),
  detail: z.string().describe('What the check found, in words.'),
  url: z.string().optional().describe('The endpoint, without credentials or secret query parameters.'),
  model: z.string().optional(),
  ms: z.number().optional().describe('How long the check took.'),
});

/** The whole report (src/core/status/report.ts is its TypeScript form). */
export const StatusReport = z.object({
  version: z.string(),
  checkedAt: z.string(),
  ok: z.boolean().describe('False when something configured is broken (then trawl doctor exits with 1).'),
  dataDir: z.object({
    path: z.string(),
    exists: z.boolean(),
    writable: z.boolean(),
    database: z.boolean().describe('Whether trawl.sqlite exists yet.'),
    bytes: Count,
    sizeCapped: z.boolean().describe('True when the directory has too many files to count: bytes is a lower bound.'),
    problem: z.string().optional().describe('Why it cannot be written.'),
    databaseProblem: z.string().optional().describe('Why its database cannot be opened or read.'),
  }),
  store: z
    .object({
      backend: z.enum(['sqlite', 'postgres']),
      version: z.string().describe("The engine's version: SQLite's library, or the PostgreSQL server's."),
      url: z.string().optional().describe('PostgreSQL: the server, without credentials.'),
      schema: z.string().optional(),
      schemaVersion: Count.optional().describe('PostgreSQL: the migration the schema is at.'),
      replicas: z
        .array(
          z.object({
            id: z.string(),
            host: z.string(),
            pid: Count,
            version: z.string(),
            startedAt: z.string(),
            seenAt: z.string(),
            behind: Count.describe('Documents in the shared store its index does not hold yet.'),
            lagMs: Count.describe('How long it has been behind (0 when it is not).'),
          }),
        )
        .optional()
        .describe('PostgreSQL: replicas seen in the last five minutes, newest first.'),
      problem: z.string().optional().describe('Why the store could not be reached or read.'),
    })
    .describe('Where the durable state is: SQLite in the data directory, or PostgreSQL shared by replicas.'),
  index: z.object({
    documents: Count,
    searchable: Count.describe('Documents in the search index.'),
    embeddedChunks: Count,
    code: z.object({ chunks: Count, files: Count, sources: Count }),
    collections: z
      .array(z.object({ name: z.string().nullable(), documents: Count }))
      .describe('At most 50, largest first.'),
    collectionCount: Count,
  }),
  keys: z.object({
    active: Count,
    revoked: Count,
    admins: z
      .array(z.object({ id: z.string(), name: z.string(), teamId: z.string(), legacy: z.boolean() }))
      .describe(
        'Active keys that hold admin (every team); legacy: made without scopes before keys were least-privilege.',
      ),
    firstKeyFile: z.string().nullable().describe('Path of the first-key file while it exists (never the key).'),
  }),
  providers: z.object({
    webSearch: z.array(Check),
    model: Check,
    embeddings: Check,
    browser: Check,
    codeModel: Check.describe("Trawl's code model (TRAWL_CODE_MODEL): loaded or ready, missing, or off."),
  }),
  listener: Check.extend({ host: z.string(), port: Count }),
  signIn: z
    .array(Check)
    .describe(
      "How people sign in besides API keys: server (Trawl's own authorization server, TRAWL_OAUTH), issuer (an external one, TRAWL_AUTH_ISSUER), oidc (the organisation's identity provider, TRAWL_OIDC_ISSUER).",
    ),
  runtime: z
    .object({
      node: z.string().describe('The Node.js version this process runs on (`v20.20.2`).'),
      supported: z.boolean().describe("Whether package.json's `engines` names this line (20.19+, 22.12+, 24+)."),
      endOfLife: z.string().optional().describe("The line's end-of-life date (YYYY-MM-DD), for a supported line."),
      ended: z.boolean().describe('Whether that date has passed: the line gets no more security fixes.'),
    })
    .describe('The Node.js line Trawl runs on.'),
  nextSteps: z.array(
    z.object({
      level: z.enum(['broken', 'note']),
      message: z.string(),
      fix: z.string().optional().describe('The command or settings that fix it.'),
    }),
  ),
});
export type StatusReport = z.infer<typeof StatusReport>;
