#!/usr/bin/env node
/**
 * `trawl`: the command line. Each command loads only what it needs (a lazy import), so `trawl mcp`
 * starts without the HTTP stack and `trawl keys` without MCP.
 */
import { Command, Option } from 'commander';
import type { TeamFlags } from './cli/accounts.command.js';
import type { CrawlFlags } from './cli/crawl.command.js';
import type { IndexFlags } from './cli/index.command.js';
import type { ImportFlags } from './cli/import.command.js';
import type { KeyFlags } from './cli/keys.command.js';
import type { ConfigFlags } from './config/config.js';
import { VERSION } from './version.js';

const dataDir = () => new Option('--data-dir <dir>', 'data directory (env TRAWL_DATA_DIR)');
const logLevel = () => new Option('--log-level <level>', 'log level on stderr (env TRAWL_LOG_LEVEL)');
const tools = () => new Option('--tools <names>', 'comma-separated MCP tools to expose (env TRAWL_TOOLS)');
const betas = () => new Option('--mcp-betas <tokens>', 'beta tokens MCP calls run with (env TRAWL_MCP_BETAS)');

/**
 * The settings `serve` and `mcp` take as flags besides their own (each is also a `TRAWL_*` variable;
 * the README's table says what it does). Kept here, not read from config, so start-up loads no zod.
 */
const SHARED_FLAGS = [
  '--user-agent <ua>',
  '--allow-private-network <bool>',
  '--private-allowlist <cidrs>',
  '--robots <bool>',
  '--fetch-max-bytes <n>',
  '--fetch-concurrency <n>',
  '--browser <path>',
  '--embeddings-url <url>',
  '--embeddings-model <name>',
  '--embeddings-api-key <key>',
  '--model-base-url <url>',
  '--model <name>',
  '--model-api-key <key>',
  '--model-prefer <server|client>',
  '--model-timeout-ms <ms>',
  '--model-max-tokens <n>',
  '--model-input-price <dollars>',
  '--model-output-price <dollars>',
  '--searxng-url <url>',
  '--brave-api-key <key>',
  '--upstream-url <url>',
  '--upstream-api-key <key>',
  '--provider-timeout-ms <ms>',
  '--mcp-max-tokens <n>',
  '--mcp-keyless <bool>',
  '--prices <json>',
  '--metering <bool>',
  '--rate-limit-qps <n>',
  '--rate-limit-concurrency <n>',
  '--agent-concurrency <n>',
  '--x402-rails <json>',
  '--x402-facilitator-url <url>',
  '--x402-facilitator-api-key <key>',
  '--agent-max-cost <dollars>',
  '--monitors <bool>',
  '--monitor-concurrency <n>',
  '--allow-insecure-webhooks <bool>',
  '--secret-key <key>',
  '--webhook-timeout-ms <ms>',
  '--webhook-retry-hours <hours>',
];
const sharedOptions = () => SHARED_FLAGS.map((f) => new Option(f, 'see the configuration table in the README'));

/** Loads the configuration from the environment and the command's flags (zod loads only here). */
async function configFrom(flags: ConfigFlags) {
  const { loadConfig } = await import('./config/config.js');
  return loadConfig(process.env, flags);
}

function fail(err: unknown): never {
  if (err instanceof Error && err.name === 'ConfigError') {
    process.stderr.write(`trawl: ${err.message}\n`);
    process.exit(2);
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`trawl: ${message}\n`);
  process.exit(1);
}

const program = new Command()
  .name('trawl')
  .description('Search and web-contents service for coding agents: REST API, MCP server and CLI.')
  .version(VERSION)
  .showHelpAfterError();

const serve = program
  .command('serve')
  .description('Run the HTTP server: REST API at the spec paths and MCP at /mcp')
  .addOption(new Option('--host <host>', 'listen address (env TRAWL_HOST, default 127.0.0.1)'))
  .addOption(new Option('--port <port>', 'listen port (env TRAWL_PORT, default 8787)'))
  .addOption(dataDir())
  .addOption(logLevel())
  .addOption(tools())
  .addOption(betas())
  .addOption(new Option('--allowed-hosts <hosts>', 'Host names /mcp accepts (env TRAWL_ALLOWED_HOSTS)'))
  .addOption(new Option('--allowed-origins <origins>', 'browser origins /mcp accepts (env TRAWL_ALLOWED_ORIGINS)'))
  .addOption(new Option('--max-body-bytes <n>', 'largest request body (env TRAWL_MAX_BODY_BYTES)'))
  .addOption(new Option('--create-first-key <bool>', 'create a key on first start (env TRAWL_CREATE_FIRST_KEY)'))
  .addOption(new Option('--workers <n>', 'worker processes sharing the port (env TRAWL_WORKERS, default 1)'))
  .action(async (flags: ConfigFlags) => {
    const { runServe } = await import('./cli/serve.command.js');
    await runServe(await configFrom(flags));
  });
for (const o of sharedOptions()) serve.addOption(o);

const mcp = program
  .command('mcp')
  .description('Run the MCP server over stdio (for Claude Code, Cursor, VS Code, Claude Desktop)')
  .addOption(dataDir())
  .addOption(logLevel())
  .addOption(tools())
  .addOption(betas())
  .action(async (flags: ConfigFlags) => {
    const { runMcp } = await import('./cli/mcp.command.js');
    await runMcp(await configFrom(flags));
  });
for (const o of sharedOptions()) mcp.addOption(o);

const teamFlags = (cmd: Command) =>
  cmd
    .option('--enterprise <bool>', 'may use compliance "hipaa" (true/false)')
    .option('--zero-retention <bool>', "keep none of its requests' content (true/false)")
    .option('--credits <dollars>', 'set the credits ("none": no credit limit)')
    .option('--budget <dollars>', 'most the team may spend per --budget-period ("none": no budget)')
    .option('--budget-period <period>', 'day or month (UTC)', 'month')
    .option('--json', 'print JSON')
    .addOption(dataDir());
const teams = program.command('teams').description('Manage teams: credits, budgets, blocking, compliance modes');
teamFlags(teams.command('create').description('Create a team').argument('<name>', 'team name')).action(
  async (name: string, flags: ConfigFlags & TeamFlags) => {
    const { createTeam } = await import('./cli/accounts.command.js');
    await createTeam(await configFrom({ dataDir: flags.dataDir }), name, flags);
  },
);
teamFlags(
  teams.command('update').description("Change a team's flags, credits or budget").argument('<team>', 'team name or id'),
).action(async (team: string, flags: ConfigFlags & TeamFlags) => {
  const { updateTeam } = await import('./cli/accounts.command.js');
  await updateTeam(await configFrom({ dataDir: flags.dataDir }), team, flags);
});
teams
  .command('list')
  .description('List teams with their credits, budgets and modes')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (flags: ConfigFlags & { json?: boolean }) => {
    const { listTeams } = await import('./cli/accounts.command.js');
    await listTeams(await configFrom({ dataDir: flags.dataDir }), flags.json === true);
  });
for (const [verb, blocked] of [
  ['block', true],
  ['unblock', false],
] as const) {
  teams
    .command(verb)
    .description(blocked ? "Block a team: its keys' requests get 403 TEAM_BLOCKED at once" : 'Unblock a team')
    .argument('<team>', 'team name or id')
    .addOption(dataDir())
    .action(async (team: string, flags: ConfigFlags) => {
      const { blockTeam } = await import('./cli/accounts.command.js');
      await blockTeam(await configFrom({ dataDir: flags.dataDir }), team, blocked);
    });
}
program
  .command('credits')
  .description("Add to a team's credits")
  .command('add')
  .description('Add AMOUNT dollars of credits to a team')
  .requiredOption('--team <team>', 'team name or id')
  .argument('<amount>', 'dollars, e.g. 25 or 2.50')
  .addOption(dataDir())
  .action(async (amount: string, flags: ConfigFlags & { team: string }) => {
    const { addCredits } = await import('./cli/accounts.command.js');
    await addCredits(await configFrom({ dataDir: flags.dataDir }), flags.team, amount);
  });
program
  .command('usage')
  .description('What each team and key spent, by operation, over the last days')
  .option('--days <n>', 'the last N UTC days, today included', '30')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (flags: ConfigFlags & { days?: string; json?: boolean }) => {
    const { usage } = await import('./cli/accounts.command.js');
    await usage(await configFrom({ dataDir: flags.dataDir }), flags);
  });

const monitors = program.command('monitors').description('Inspect monitors, their runs and webhook deliveries');
monitors
  .command('list')
  .description('List monitors, newest first, with their schedule')
  .option('--status <status>', 'active, paused or disabled')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (flags: ConfigFlags & { status?: string; json?: boolean }) => {
    const { listMonitors } = await import('./cli/monitors.command.js');
    await listMonitors(await configFrom({ dataDir: flags.dataDir }), flags);
  });
monitors
  .command('runs')
  .description("List a monitor's last 50 runs, with why they failed")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (id: string, flags: ConfigFlags & { json?: boolean }) => {
    const { listRuns } = await import('./cli/monitors.command.js');
    await listRuns(await configFrom({ dataDir: flags.dataDir }), id, flags);
  });
monitors
  .command('deliveries')
  .description("List a monitor's last 50 webhook deliveries and every attempt (HTTP status, error)")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (id: string, flags: ConfigFlags & { json?: boolean }) => {
    const { listDeliveries } = await import('./cli/monitors.command.js');
    await listDeliveries(await configFrom({ dataDir: flags.dataDir }), id, flags);
  });

const keys = program.command('keys').description('Manage API keys');
keys
  .command('create')
  .description('Create an API key and print it (only the key) on stdout')
  .requiredOption('--name <name>', 'what the key is for')
  .option('--team <team>', 'team name or id (default: the team "default")')
  .option('--scopes <list>', 'comma-separated: search,contents,context,monitors,agent,admin (default: all)')
  .option('--budget <dollars>', 'most the key may spend per --budget-period')
  .option('--budget-period <period>', 'day or month (UTC)', 'month')
  .option('--qps <n>', 'requests per second (default: TRAWL_RATE_LIMIT_QPS; 0: no limit)')
  .addOption(dataDir())
  .action(async (flags: ConfigFlags & KeyFlags & { name: string }) => {
    const { createKey } = await import('./cli/keys.command.js');
    await createKey(await configFrom({ dataDir: flags.dataDir }), flags.name, flags);
  });
keys
  .command('list')
  .description('List API keys (never the keys themselves)')
  .option('--json', 'print JSON')
  .addOption(dataDir())
  .action(async (flags: ConfigFlags & { json?: boolean }) => {
    const { listKeys } = await import('./cli/keys.command.js');
    await listKeys(await configFrom({ dataDir: flags.dataDir }), flags.json === true);
  });
keys
  .command('revoke')
  .description('Revoke an API key by id (or by the key itself); takes effect at once')
  .argument('<id>', 'key id as shown by keys list')
  .addOption(dataDir())
  .action(async (id: string, flags: ConfigFlags) => {
    const { revokeKey } = await import('./cli/keys.command.js');
    await revokeKey(await configFrom({ dataDir: flags.dataDir }), id);
  });

const collect = (value: string, previous: string[] = []) => [...previous, value];
const progress = () =>
  new Option('--progress <mode>', 'progress on stderr: auto (bar on a terminal, lines otherwise), bar, lines, off');

program
  .command('crawl')
  .description('Crawl sites (sitemaps and same-site links) into the document store; rerun to resume')
  .argument('<url...>', 'seed URLs')
  .option('--depth <n>', 'link hops from a seed; sitemap URLs are depth 1 (default 3)')
  .option('--limit <n>', 'pages to attempt over the whole crawl, resumed runs included (default 1000)')
  .option('--include <pattern>', 'only URLs matching this glob (repeatable), e.g. "*/docs/*"', collect)
  .option('--exclude <pattern>', 'skip URLs matching this glob (repeatable)', collect)
  .option('--concurrency <n>', 'pages fetched at once (default 8)')
  .option('--per-host <n>', 'pages fetched at once per host (default 2)')
  .option('--delay <ms>', 'politeness delay between requests to one host (default 250)')
  .option('--timeout <ms>', 'time limit of one page fetch, at most 90000 (default 10000)')
  .option('--no-sitemaps', 'do not read robots.txt Sitemap lines and /sitemap.xml')
  .option('--resume', 'resume the unfinished crawl of these URLs and options (fail if none)')
  .option('--restart', 'start over, dropping the saved frontier of this crawl')
  .option('--json', 'print the summary as JSON')
  .addOption(progress())
  .addOption(dataDir())
  .addOption(logLevel())
  .action(async (urls: string[], flags: ConfigFlags & CrawlFlags) => {
    const { runCrawl } = await import('./cli/crawl.command.js');
    await runCrawl(await configFrom({ dataDir: flags.dataDir, logLevel: flags.logLevel }), urls, flags);
  });

program
  .command('import')
  .description('Import JSONL records (optionally gzipped) or folders of HTML/Markdown/text files as documents')
  .argument('<path...>', 'JSONL files (.jsonl, .jsonl.gz) and folders')
  .option('--code', 'the records are code ({_id, code, language?, path?, url?}) for the code index (/context)')
  .option('--collection <name>', 'collection of the documents (default: file base name or folder name)')
  .option('--batch <n>', 'documents per transaction (default 500)')
  .option('--json', 'print the summary as JSON')
  .addOption(progress())
  .addOption(dataDir())
  .addOption(logLevel())
  .action(async (paths: string[], flags: ConfigFlags & ImportFlags) => {
    const { runImport } = await import('./cli/import.command.js');
    await runImport(await configFrom({ dataDir: flags.dataDir, logLevel: flags.logLevel }), paths, flags);
  });

program
  .command('index')
  .description(
    'Index code for /context: folders and git repositories (a URL is cloned shallowly), re-indexing only what changed. ' +
      '`trawl index rebuild` re-indexes the search index; `trawl index stats` prints both indexes',
  )
  .argument('<targets...>', 'folders, git repository URLs, or the words rebuild / stats')
  .option('--packages', "also index the project's node_modules packages (READMEs, docs, type declarations, sources)")
  .option('--name <name>', 'source name shown in snippet locations (default: the folder or repository name)')
  .option('--json', 'print the summary as JSON')
  .addOption(dataDir())
  .addOption(logLevel())
  .action(async (targets: string[], flags: ConfigFlags & IndexFlags) => {
    const cmd = await import('./cli/index.command.js');
    const config = await configFrom({ dataDir: flags.dataDir, logLevel: flags.logLevel });
    if (targets.length === 1 && targets[0] === 'rebuild') return cmd.rebuildIndex(config);
    if (targets.length === 1 && targets[0] === 'stats') return cmd.indexStats(config);
    await cmd.indexCode(config, targets, flags);
  });

program
  .command('openapi')
  .description('Print the OpenAPI 3.1 document of the REST API')
  .action(async () => {
    const { printOpenApi } = await import('./cli/openapi.command.js');
    printOpenApi();
  });

program.parseAsync(process.argv).catch(fail);
