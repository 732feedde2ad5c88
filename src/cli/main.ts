#!/usr/bin/env node
/**
 * `trawl`: the command line. Each command loads only what it needs (a lazy import), so `trawl mcp`
 * starts without the HTTP stack and `trawl keys` without MCP.
 */
import { Command, Option } from 'commander';
import type { TeamFlags } from './accounts.command.js';
import type { CrawlFlags } from './crawl.command.js';
import type { IndexFlags } from './index.command.js';
import type { ImportFlags } from './import.command.js';
import type { KeyFlags } from './keys.command.js';
import type { MigrateFlags } from './migrate.command.js';
import type { ConfigFlags } from '../config/config.js';
import { SETTING_FLAGS } from '../config/flags.js';
import { VERSION } from '../version.js';

const SETTINGS_HEADING = 'Settings (each also a TRAWL_* variable; table: docs/configuration.md):';

/**
 * Adds the flags of the settings `command` uses. The list is src/config/flags.ts, generated from SETTINGS
 * (scripts/settings-table.mjs), so start-up loads no zod and every setting is a flag of its commands.
 */
function withSettings(cmd: Command, command: string): Command {
  for (const s of SETTING_FLAGS) {
    if (s.commands.includes(command)) cmd.addOption(new Option(s.flags, s.help).helpGroup(SETTINGS_HEADING));
  }
  return cmd;
}

/** The settings among a command's parsed flags; its own options (crawl's `--concurrency`, ...) stay out. */
function settingsOf(flags: object): ConfigFlags {
  const given = flags as Record<string, unknown>;
  return Object.fromEntries(SETTING_FLAGS.filter((s) => given[s.key] !== undefined).map((s) => [s.key, given[s.key]]));
}

/** Loads the configuration from the environment and the command's flags (zod loads only here). */
async function configFrom(flags: object) {
  const { loadConfig } = await import('../config/config.js');
  return loadConfig(process.env, settingsOf(flags));
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

program
  .command('serve')
  .description('Run the HTTP server: REST API at the spec paths and MCP at /mcp')
  .action(async (flags: ConfigFlags) => {
    const { runServe } = await import('./serve.command.js');
    await runServe(await configFrom(flags));
  });

program
  .command('mcp')
  .description('Run the MCP server over stdio (for Claude Code, Cursor, VS Code, Claude Desktop)')
  .action(async (flags: ConfigFlags) => {
    const { runMcp } = await import('./mcp.command.js');
    await runMcp(await configFrom(flags));
  });

const teamFlags = (cmd: Command) =>
  cmd
    .option('--enterprise <bool>', 'may use compliance "hipaa" (true/false)')
    .option('--zero-retention <bool>', "keep none of its requests' content (true/false)")
    .option('--credits <dollars>', 'set the credits ("none": no credit limit)')
    .option('--budget <dollars>', 'most the team may spend per --budget-period ("none": no budget)')
    .option('--budget-period <period>', 'day or month (UTC)', 'month')
    .option('--json', 'print JSON');
const teams = program.command('teams').description('Manage teams: credits, budgets, blocking, compliance modes');
teamFlags(teams.command('create').description('Create a team').argument('<name>', 'team name')).action(
  async (name: string, flags: ConfigFlags & TeamFlags) => {
    const { createTeam } = await import('./accounts.command.js');
    await createTeam(await configFrom(flags), name, flags);
  },
);
teamFlags(
  teams.command('update').description("Change a team's flags, credits or budget").argument('<team>', 'team name or id'),
).action(async (team: string, flags: ConfigFlags & TeamFlags) => {
  const { updateTeam } = await import('./accounts.command.js');
  await updateTeam(await configFrom(flags), team, flags);
});
teams
  .command('list')
  .description('List teams with their credits, budgets and modes')
  .option('--json', 'print JSON')
  .action(async (flags: ConfigFlags & { json?: boolean }) => {
    const { listTeams } = await import('./accounts.command.js');
    await listTeams(await configFrom(flags), flags.json === true);
  });
for (const [verb, blocked] of [
  ['block', true],
  ['unblock', false],
] as const) {
  teams
    .command(verb)
    .description(blocked ? "Block a team: its keys' requests get 403 TEAM_BLOCKED at once" : 'Unblock a team')
    .argument('<team>', 'team name or id')
    .action(async (team: string, flags: ConfigFlags) => {
      const { blockTeam } = await import('./accounts.command.js');
      await blockTeam(await configFrom(flags), team, blocked);
    });
}
program
  .command('credits')
  .description("Add to a team's credits")
  .command('add')
  .description('Add AMOUNT dollars of credits to a team')
  .requiredOption('--team <team>', 'team name or id')
  .argument('<amount>', 'dollars, e.g. 25 or 2.50')
  .action(async (amount: string, flags: ConfigFlags & { team: string }) => {
    const { addCredits } = await import('./accounts.command.js');
    await addCredits(await configFrom(flags), flags.team, amount);
  });
program
  .command('usage')
  .description('What each team and key spent, by operation, over the last days')
  .option('--days <n>', 'the last N UTC days, today included', '30')
  .option('--json', 'print JSON')
  .action(async (flags: ConfigFlags & { days?: string; json?: boolean }) => {
    const { usage } = await import('./accounts.command.js');
    await usage(await configFrom(flags), flags);
  });

const monitors = program.command('monitors').description('Inspect monitors, their runs and webhook deliveries');
monitors
  .command('list')
  .description('List monitors, newest first, with their schedule')
  .option('--status <status>', 'active, paused or disabled')
  .option('--json', 'print JSON')
  .action(async (flags: ConfigFlags & { status?: string; json?: boolean }) => {
    const { listMonitors } = await import('./monitors.command.js');
    await listMonitors(await configFrom(flags), flags);
  });
monitors
  .command('runs')
  .description("List a monitor's last 50 runs, with why they failed")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .action(async (id: string, flags: ConfigFlags & { json?: boolean }) => {
    const { listRuns } = await import('./monitors.command.js');
    await listRuns(await configFrom(flags), id, flags);
  });
monitors
  .command('deliveries')
  .description("List a monitor's last 50 webhook deliveries and every attempt (HTTP status, error)")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .action(async (id: string, flags: ConfigFlags & { json?: boolean }) => {
    const { listDeliveries } = await import('./monitors.command.js');
    await listDeliveries(await configFrom(flags), id, flags);
  });

program
  .command('audit')
  .description("Changes made to teams' accounts (keys, flags, credits, budgets): who, what, when, newest first")
  .option('--team <team>', 'one team (name or id)')
  .option('--limit <n>', 'records to show (1-100)', '50')
  .option('--json', 'print JSON')
  .action(async (flags: ConfigFlags & { team?: string; limit?: string; json?: boolean }) => {
    const { audit } = await import('./accounts.command.js');
    await audit(await configFrom(flags), flags);
  });

const keys = program.command('keys').description('Manage API keys');
keys
  .command('create')
  .description('Create an API key and print it (only the key) on stdout')
  .requiredOption('--name <name>', 'what the key is for')
  .option('--team <team>', 'team name or id (default: the team "default")')
  .option(
    '--scopes <list>',
    "comma-separated: search,contents,context,monitors,agent,admin:team (its team's keys, usage, audit), admin (every team) (default: all but the admin ones)",
  )
  .option('--budget <dollars>', 'most the key may spend per --budget-period')
  .option('--budget-period <period>', 'day or month (UTC)', 'month')
  .option('--qps <n>', 'requests per second (default: TRAWL_RATE_LIMIT_QPS; 0: no limit)')
  .action(async (flags: ConfigFlags & KeyFlags & { name: string }) => {
    const { createKey } = await import('./keys.command.js');
    await createKey(await configFrom(flags), flags.name, flags);
  });
keys
  .command('list')
  .description('List API keys (never the keys themselves)')
  .option('--json', 'print JSON')
  .action(async (flags: ConfigFlags & { json?: boolean }) => {
    const { listKeys } = await import('./keys.command.js');
    await listKeys(await configFrom(flags), flags.json === true);
  });
keys
  .command('update')
  .description("Replace a key's scopes (e.g. narrow a key that holds admin); takes effect at once")
  .argument('<id>', 'key id as shown by keys list')
  .requiredOption('--scopes <list>', 'comma-separated scopes the key holds from now on')
  .action(async (id: string, flags: ConfigFlags & { scopes: string }) => {
    const { updateKey } = await import('./keys.command.js');
    await updateKey(await configFrom(flags), id, flags);
  });
keys
  .command('revoke')
  .description('Revoke an API key by id (or by the key itself); takes effect at once')
  .argument('<id>', 'key id as shown by keys list')
  .action(async (id: string, flags: ConfigFlags) => {
    const { revokeKey } = await import('./keys.command.js');
    await revokeKey(await configFrom(flags), id);
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
  .action(async (urls: string[], flags: ConfigFlags & CrawlFlags) => {
    const { runCrawl } = await import('./crawl.command.js');
    await runCrawl(await configFrom(flags), urls, flags);
  });

program
  .command('import')
  .description('Import JSONL records (optionally gzipped) or folders of HTML/Markdown/text files as documents')
  .argument('<path...>', 'JSONL files (.jsonl, .jsonl.gz) and folders')
  .option('--code', 'the records are code ({_id, code, language?, path?, url?}) for the code index (/context)')
  .option('--collection <name>', 'collection of the documents (default: file base name or folder name)')
  .option('--batch <n>', 'documents per transaction (default 1000)')
  .option('--json', 'print the summary as JSON')
  .addOption(progress())
  .action(async (paths: string[], flags: ConfigFlags & ImportFlags) => {
    const { runImport } = await import('./import.command.js');
    await runImport(await configFrom(flags), paths, flags);
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
  .action(async (targets: string[], flags: ConfigFlags & IndexFlags) => {
    const cmd = await import('./index.command.js');
    const config = await configFrom(flags);
    if (targets.length === 1 && targets[0] === 'rebuild') return cmd.rebuildIndex(config);
    if (targets.length === 1 && targets[0] === 'stats') return cmd.indexStats(config);
    await cmd.indexCode(config, targets, flags);
  });

program
  .command('migrate')
  .description('Copy a data directory (its SQLite database) into PostgreSQL; rerun to resume (docs/migrate.md)')
  .requiredOption('--from <dir>', 'the data directory to copy (it is only read)')
  .requiredOption('--to <url>', 'the database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE')
  .option('--schema <name>', 'the PostgreSQL schema (default public)')
  .option('--restart', 'read every table from its start again, rewriting rows that changed since the last run')
  .option('--batch <n>', 'rows per transaction (default 1000)')
  .addOption(progress())
  .action(async (flags: MigrateFlags) => {
    const { runMigrate } = await import('./migrate.command.js');
    await runMigrate(flags, process.env);
  });

program
  .command('openapi')
  .description('Print the OpenAPI 3.1 document of the REST API')
  .action(async () => {
    const { printOpenApi } = await import('./openapi.command.js');
    printOpenApi();
  });

program
  .command('doctor')
  .description('Check the data directory, index, providers, keys and listener; say what is missing and how to add it')
  .option('--json', 'print the report as JSON (what GET /status answers)')
  .action(async (flags: ConfigFlags & { json?: boolean }) => {
    const { runDoctor } = await import('./doctor.command.js');
    await runDoctor(await configFrom(flags), { json: flags.json === true });
  });

// Every command, and each subcommand of a group (keys create, teams list...), takes the flags of the
// settings its top-level command uses.
for (const top of program.commands) {
  for (const cmd of top.commands.length > 0 ? top.commands : [top]) withSettings(cmd, top.name());
}

program.parseAsync(process.argv).catch(fail);
