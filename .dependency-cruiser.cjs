/* global module */
// The layering of src/, written once: which folder may import which. dependency-cruiser (run by
// `npm run lint`) turns the table into one rule per folder and adds the no-cycle rule; type-only imports
// count as imports. docs/architecture.md is drawn from this table by `node scripts/architecture.mjs`.

/** The layers, top (doors) to bottom (leaves): what each holds and what it may import besides itself. */
const LAYERS = [
  { name: 'cli', path: '^src/(cli/|cli\\.ts$)', role: 'The `trawl` command line: parses flags, builds the app, prints.', may: ['app', 'http', 'mcp', 'ops', 'core', 'config'] }, // prettier-ignore
  { name: 'http', path: '^src/http/', role: 'The REST door, MCP over streamable HTTP, the Responses door, x402 payments; the tag → status table.', may: ['mcp', 'ops', 'app', 'core', 'schemas', 'config', 'fetch', 'providers'] }, // prettier-ignore
  { name: 'mcp', path: '^src/mcp/', role: 'The MCP door: tools, tasks, cursors over the ops; stdio transport.', may: ['ops', 'app', 'core', 'schemas', 'store', 'config', 'providers'] }, // prettier-ignore
  { name: 'app', path: '^src/compose/', role: 'The composition root: config → store, fetcher, providers → core services; the wire limits of the process.', may: ['config', 'core', 'schemas', 'store', 'fetch', 'providers'] }, // prettier-ignore
  { name: 'ops', path: '^src/ops/', role: 'Each operation described once (schemas, route, tool) and run; maps wire objects to domain types.', may: ['core', 'schemas'] }, // prettier-ignore
  { name: 'schemas', path: '^src/schemas/', role: 'The wire format: zod schemas of the spec, word for word.', may: ['core'] }, // prettier-ignore
  { name: 'core', path: '^src/core/', role: 'Transport-free services and their rules, speaking domain types.', may: ['store', 'fetch', 'providers'] }, // prettier-ignore
  { name: 'providers', path: '^src/providers/', role: 'Web-search, model and embeddings APIs the operator plugs in.', may: ['fetch'] }, // prettier-ignore
  { name: 'store', path: '^src/store/', role: 'Named repositories over SQLite and over PostgreSQL (pg/), migrations, the page cache; the search index’s byte format and its merge worker thread.', may: [] }, // prettier-ignore
  { name: 'fetch', path: '^src/fetch/', role: 'The one network edge: undici, SSRF guard, robots.txt, limits, webhooks.', may: [] }, // prettier-ignore
  { name: 'config', path: '^src/config/', role: 'Settings read once from flags and environment, validated, frozen.', may: [] }, // prettier-ignore
  { name: 'lib', path: '^src/(lib/|errors\\.ts$|version\\.ts$)', role: 'Leaves any layer may use: the domain error, logger, tokens, redaction, small helpers.', may: [] }, // prettier-ignore
];

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
    {
      name: 'no-cycles',
      comment: 'No import cycles, type-only imports included: a shared type goes into its own module.',
      severity: 'error',
      from: {},
      to: { circular: true },
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
        'The doors (HTTP, MCP, CLI) reach data through the services the composition root built, never a repository. ' +
        'The MCP tasks (src/mcp/tasks/) still keep their repository, until it moves into the core.',
      severity: 'error',
      from: { path: [pathOf.http, pathOf.mcp, pathOf.cli], pathNot: '^src/mcp/tasks/' },
      to: { path: pathOf.store },
    },
    {
      name: 'only-compose-joins-config-and-store',
      comment:
        'Only the composition root (src/compose/) reads the configuration and opens the store: the core and ' +
        'the store may not import config (their layers), and nothing else but the core imports the store.',
      severity: 'error',
      from: { path: '^src/', pathNot: [pathOf.app, pathOf.core, pathOf.store, ENTRY, '^src/mcp/tasks/'] },
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
