/* global module */
// The layering of src/, written once: which folder may import which. dependency-cruiser (run by
// `npm run lint`) turns the table into one rule per folder and adds the no-cycle rule; type-only imports
// count as imports. docs/architecture.md is drawn from this table by `node scripts/architecture.mjs`.

/** The layers, top (doors) to bottom (leaves): what each holds and what it may import besides itself. */
const LAYERS = [
  { name: 'cli', path: '^src/cli/', role: 'The `trawl` command line: parses flags, builds the app, prints.', may: ['app', 'http', 'mcp', 'ops', 'core', 'config', 'metrics'] }, // prettier-ignore
  { name: 'http', path: '^src/http/', role: 'The REST door, MCP over streamable HTTP, the Responses door, x402 payments; the tag → status table.', may: ['mcp', 'ops', 'app', 'core', 'schemas', 'config', 'fetch', 'providers'] }, // prettier-ignore
  { name: 'mcp', path: '^src/mcp/', role: 'The MCP door: tools, tasks, cursors over the ops; stdio transport.', may: ['ops', 'app', 'core', 'schemas', 'config', 'providers'] }, // prettier-ignore
  { name: 'app', path: '^src/compose/', role: 'The composition root: config → store, fetcher, providers → core services; the wire limits of the process.', may: ['config', 'ops', 'core', 'schemas', 'store', 'fetch', 'providers', 'metrics', 'tracing'] }, // prettier-ignore
  { name: 'ops', path: '^src/ops/', role: 'Each operation described once (schemas, route, tool) and run; maps wire objects to domain types.', may: ['core', 'schemas'] }, // prettier-ignore
  { name: 'schemas', path: '^src/schemas/', role: 'The wire format: zod schemas of the spec, word for word.', may: ['core'] }, // prettier-ignore
  { name: 'core', path: '^src/core/', role: 'Transport-free services and their rules, speaking domain types.', may: ['store', 'fetch', 'providers'] }, // prettier-ignore
  { name: 'providers', path: '^src/providers/', role: 'Web-search, model and embeddings APIs the operator plugs in.', may: ['fetch'] }, // prettier-ignore
  { name: 'store', path: '^src/store/', role: 'Named repositories over SQLite and over PostgreSQL (pg/), migrations, the page cache; the search index’s byte format and its merge worker thread.', may: [] }, // prettier-ignore
  { name: 'fetch', path: '^src/fetch/', role: 'The one network edge: undici, SSRF guard, robots.txt, limits, webhooks.', may: [] }, // prettier-ignore
  { name: 'metrics', path: '^src/observe/metrics/', role: 'Prometheus metrics: prom-client loaded on the first scrape, what src/lib/observe.ts recorded, scrape-time gauges, the metrics listener.', may: [] }, // prettier-ignore
  { name: 'tracing', path: '^src/observe/tracing/', role: 'OpenTelemetry traces: the tracing port (src/lib/tracing.ts) over the SDK, loaded only when an OTLP endpoint is set.', may: [] }, // prettier-ignore
  { name: 'config', path: '^src/config/', role: 'Settings read once from flags and environment, validated, frozen.', may: [] }, // prettier-ignore
  { name: 'lib', path: '^src/(lib/|errors\\.ts$|version\\.ts$)', role: 'Leaves any layer may use: the domain error, logger, tokens, redaction, small helpers.', may: [] }, // prettier-ignore
];

/**
 * The areas of src/core/, high to low: each may import only the areas below it (and itself), so no two
 * areas import each other. A module belongs to the first area whose path matches (ports.ts before the
 * other root files). Drawn in docs/architecture.md too.
 */
const CORE_AREAS = [
  { name: 'ports', path: '^src/core/ports\\.ts$', role: 'The service catalogue: every service the composition root builds, by name.' }, // prettier-ignore
  { name: 'retention', path: '^src/core/retention/', role: 'How long records are kept: the pruning sweep, leased across processes.' }, // prettier-ignore
  { name: 'agent', path: '^src/core/agent/', role: 'Asynchronous research runs, their events and their cost.' }, // prettier-ignore
  { name: 'migrate', path: '^src/core/migrate/', role: '`trawl migrate`’s core parts: webhook secrets re-sealed, embeddings keyed by text.' }, // prettier-ignore
  { name: 'oauth', path: '^src/core/oauth/', role: 'Trawl’s own authorization server: its state in the store, sealed keys, key sign-in, consent scopes, revocation.' }, // prettier-ignore
  { name: 'monitors', path: '^src/core/monitors/', role: 'Scheduled searches, their runs, deduplication and signed webhooks.' }, // prettier-ignore
  { name: 'status', path: '^src/core/status/', role: '`GET /status` and `trawl doctor`: what works, what is missing, what to do next.' }, // prettier-ignore
  { name: 'operator', path: '^src/core/operator/', role: 'The operator’s background jobs from the console: a crawl, an import of an uploaded file, a code index.' }, // prettier-ignore
  { name: 'crawl', path: '^src/core/crawl/', role: 'A site’s frontier walked politely into the documents, resumable.' }, // prettier-ignore
  { name: 'replica', path: '^src/core/replica/', role: 'With PostgreSQL: writes to the shared store, follows its logs into this machine’s copy.' }, // prettier-ignore
  { name: 'code', path: '^src/core/code/', role: 'Folders, repositories, packages and pages’ examples → code chunks → `/context`.' }, // prettier-ignore
  { name: 'import', path: '^src/core/import/', role: 'JSONL, folders and dumps into the documents, exactly once.' }, // prettier-ignore
  { name: 'accounts', path: '^src/core/accounts/', role: 'Keys, teams, rates, credits, budgets, usage and the audit log.' }, // prettier-ignore
  { name: 'access', path: '^src/core/access/', role: 'Scopes, who owns each stored resource, and the rule that checks a caller.' }, // prettier-ignore
  { name: 'search', path: '^src/core/search/', role: 'A `SearchPlan` → local index, providers, contents → ranked results; `/answer`.' }, // prettier-ignore
  { name: 'contents', path: '^src/core/contents/', role: 'A URL → fetched, extracted, cached page → a result.' }, // prettier-ignore
  { name: 'synthesis', path: '^src/core/synthesis/', role: 'Answers and structured output written from sources, by a model or extracted.' }, // prettier-ignore
  { name: 'documents', path: '^src/core/documents/', role: 'The documents’ contract and their one write path.' }, // prettier-ignore
  { name: 'snapshots', path: '^src/core/snapshots/', role: 'The answers the MCP door pages by cursor, kept for their time to live.' }, // prettier-ignore
  { name: 'jobs', path: '^src/core/jobs/', role: 'The lease engine: claim, renew, recover and cancel every kind of job.' }, // prettier-ignore
  { name: 'text', path: '^src/core/text/', role: 'Tokenizing, stemming, sentences, dates, vectors.' }, // prettier-ignore
  { name: 'root', path: '^src/core/[^/]+\\.ts$', role: 'The leaves: `ServiceContext`, prices, warnings, compliance, list cursors, search types.' }, // prettier-ignore
];

const coreAreaRules = CORE_AREAS.map((area, i) => ({
  name: `core-${area.name}`,
  comment: `core/${area.name} may import ${CORE_AREAS.slice(i + 1).map((lower) => lower.name).join(', ') || 'no other area'} (docs/architecture.md)`, // prettier-ignore
  severity: 'error',
  from: { path: area.path, pathNot: CORE_AREAS.slice(0, i).map((higher) => higher.path) },
  to: { path: '^src/core/', pathNot: CORE_AREAS.slice(i).map((same) => same.path) },
}));

/** The package's public entry point re-exports from every layer. */
const ENTRY = '^src/index\\.ts$';

const pathOf = Object.fromEntries(LAYERS.map((layer) => [layer.name, layer.path]));

const layerRules = LAYERS.map((layer) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} may import ${[...layer.may, 'lib'].join(', ')} (docs/architecture.md)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: '^src/', pathNot: [layer.path, pathOf.lib, ...layer.may.map((name) => pathOf[name])] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    ...coreAreaRules,
    {
      name: 'every-core-module-has-an-area',
      comment: 'A new folder under src/core/ gets its line in CORE_AREAS.',
      severity: 'error',
      from: { path: pathOf.core, pathNot: CORE_AREAS.map((area) => area.path) },
      to: {},
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles, type-only imports included: a shared type goes into its own module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'store-contracts-are-neutral',
      comment:
        'store/contracts/ holds what every backend keeps (repository interfaces, rows): it imports no implementation, SQLite or PostgreSQL.',
      severity: 'error',
      from: { path: '^src/store/contracts/' },
      to: { path: ['^src/store/sqlite/', '^src/store/pg/', 'node_modules/(better-sqlite3|pg|sqlite-vec)/'] },
    },
    {
      name: 'core-uses-no-pg',
      comment:
        'The core names the ports it needs (core/replica/shared-store.ts); the composition root passes PostgreSQL’s.',
      severity: 'error',
      from: { path: pathOf.core },
      to: { path: '^src/store/pg/' },
    },
    {
      name: 'store-backends-are-siblings',
      comment:
        'store/sqlite/ and store/pg/ implement the same contracts side by side; neither imports the other. What both need lives in store/contracts/. Exception: the copy from SQLite reads a SQLite data directory.',
      severity: 'error',
      from: { path: '^src/store/pg/', pathNot: '^src/store/pg/copy-from-sqlite\\.ts$' },
      to: { path: '^src/store/sqlite/' },
    },
    {
      name: 'store-sqlite-imports-no-pg',
      comment: 'The SQLite store runs without PostgreSQL: nothing in store/sqlite/ imports store/pg/.',
      severity: 'error',
      from: { path: '^src/store/sqlite/' },
      to: { path: '^src/store/pg/' },
    },
    {
      name: 'only-http-uses-hono',
      comment: 'Hono is the REST door’s web framework.',
      severity: 'error',
      from: { path: '^src/', pathNot: pathOf.http },
      to: { path: 'node_modules/(hono|@hono)/' },
    },
    {
      name: 'only-doors-use-the-mcp-sdk',
      comment: 'The MCP SDK belongs to the MCP door and the HTTP route that carries it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [pathOf.mcp, pathOf.http, pathOf.cli] },
      to: { path: 'node_modules/@modelcontextprotocol/' },
    },
    {
      name: 'only-tracing-uses-opentelemetry',
      comment:
        'OpenTelemetry loads only when traces are on: src/observe/tracing/ imports it (its SDK by a dynamic import); everything else calls the tracing port, src/lib/tracing.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/observe/tracing/' },
      to: { path: 'node_modules/@opentelemetry/' },
    },
    {
      name: 'imports-resolve',
      comment: 'An import the checker cannot resolve would hide from every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'nothing-imports-the-entry',
      comment: 'src/index.ts is for the package users; modules import what they need directly.',
      severity: 'error',
      from: { pathNot: ENTRY },
      to: { path: ENTRY },
    },
    {
      name: 'every-module-has-a-layer',
      comment: 'A new folder under src/ gets its line in the table above.',
      severity: 'error',
      from: { path: '^src/', pathNot: [ENTRY, ...LAYERS.map((layer) => layer.path)] },
      to: {},
    },
    {
      name: 'doors-use-no-store',
      comment:
        'The doors (HTTP, MCP, CLI) reach data through the services the composition root built, never a repository.',
      severity: 'error',
      from: { path: [pathOf.http, pathOf.mcp, pathOf.cli] },
      to: { path: pathOf.store },
    },
    {
      name: 'doors-see-a-door',
      comment:
        'A door is built on a Door (src/compose/door.ts; the CLI opens one with src/compose/open.ts): the ' +
        "operations and the few services it answers with itself, never the app, its services' record or its " +
        'lifecycle. The CLI also runs tools of the composition root that need no app: migrate, backup and restore, and the offline doctor.',
      severity: 'error',
      from: { path: [pathOf.http, pathOf.mcp, pathOf.cli] },
      to: {
        path: ['^src/compose/', '^src/core/ports\\.ts$'],
        pathNot: '^src/compose/(door|open|migrate|backup|offline-report)\\.ts$',
      },
    },
    {
      name: 'only-compose-joins-config-and-store',
      comment:
        'Only the composition root (src/compose/) reads the configuration and opens the store: the core and ' +
        'the store may not import config (their layers), and nothing else but the core imports the store.',
      severity: 'error',
      from: { path: '^src/', pathNot: [pathOf.app, pathOf.core, pathOf.store, ENTRY] },
      to: { path: pathOf.store },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    // packages' `exports` maps, so that `@modelcontextprotocol/sdk/server/mcp.js` resolves as Node resolves it
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

// the table itself, for scripts/architecture.mjs (not enumerable: dependency-cruiser refuses unknown keys)
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
Object.defineProperty(module.exports, 'CORE_AREAS', { value: CORE_AREAS, enumerable: false });
