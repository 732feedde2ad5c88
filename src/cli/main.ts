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
import type { BackupFlags, RestoreFlags } from './backup.command.js';
import type { PruneFlags } from './prune.command.js';
import type { ConfigFlags } from '../config/config.js';
import type { Config } from '../config/settings.js';
import { SETTING_FLAGS } from '../config/flags.js';
import { booleanFlagArgs } from '../config/settings-doc.js';
import { VERSION } from '../version.js';

const SETTINGS_HEADING = 'Settings (each also a TRAWL_* variable; table: docs/configuration.md):';

/**
 * Adds the flags of the settings `command` uses. The list is src/config/flags.ts, generated from SETTINGS
 * (scripts/settings-table.mjs), so start-up loads no zod and every setting is a flag of its commands.
 */
function withSettings(cmd: Command, command: string): Command {
  for (const s of SETTING_FLAGS) {
    if (!s.commands.includes(command)) continue;
    cmd.addOption(new Option(s.flags, s.help).helpGroup(SETTINGS_HEADING));
    // a boolean setting is a flag alone; `--no-…` sets it false (and leaves it unset when neither is given)
    if (BOOLEAN_FLAGS.has(s.flags)) cmd.addOption(new Option(s.flags.replace(/^--/, '--no-')).hideHelp());
  }
  return cmd;
}

/** The flags of the boolean settings: those that take no value. */
const BOOLEAN_FLAGS: ReadonlySet<string> = new Set(
  SETTING_FLAGS.filter((s) => !s.flags.includes(' ')).map((s) => s.flags),
);

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

/**
 * A command's action: it imports the command's module when the command runs (not before), loads the
 * configuration from the environment and the command's setting flags, and hands `run` the module, the
 * configuration, the command's own flags and its arguments (commander passes the arguments, then the
 * flags, then the command).
 */
function lazy<M, F extends object, A extends unknown[]>(
  importModule: () => Promise<M>,
  run: (cmd: M, config: Config, flags: F, ...args: A) => Promise<unknown>,
) {
  return async (...given: unknown[]) => {
    const cmd = await importModule();
    const flags = given.at(-2) as F & ConfigFlags;
    await run(cmd, await configFrom(flags), flags, ...(given.slice(0, -2) as A));
  };
}

/** The command modules, each imported only when one of its commands runs. */
const load = {
  serve: () => import('./serve.command.js'),
  mcp: () => import('./mcp.command.js'),
  accounts: () => import('./accounts.command.js'),
  keys: () => import('./keys.command.js'),
  monitors: () => import('./monitors.command.js'),
  crawl: () => import('./crawl.command.js'),
  import: () => import('./import.command.js'),
  index: () => import('./index.command.js'),
  doctor: () => import('./doctor.command.js'),
  secrets: () => import('./secrets.command.js'),
  backup: () => import('./backup.command.js'),
  prune: () => import('./prune.command.js'),
};

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
  .action(lazy(load.serve, (cmd, config) => cmd.runServe(config)));

program
  .command('mcp')
  .description('Run the MCP server over stdio (for Claude Code, Cursor, VS Code, Claude Desktop)')
  .action(lazy(load.mcp, (cmd, config) => cmd.runMcp(config)));

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
  lazy(load.accounts, (cmd, config, flags: TeamFlags, name: string) => cmd.createTeam(config, name, flags)),
);
teamFlags(
  teams.command('update').description("Change a team's flags, credits or budget").argument('<team>', 'team name or id'),
).action(lazy(load.accounts, (cmd, config, flags: TeamFlags, team: string) => cmd.updateTeam(config, team, flags)));
teams
  .command('list')
  .description('List teams with their credits, budgets and modes')
  .option('--json', 'print JSON')
  .action(lazy(load.accounts, (cmd, config, flags: { json?: boolean }) => cmd.listTeams(config, flags.json === true)));
for (const [verb, blocked] of [
  ['block', true],
  ['unblock', false],
] as const) {
  teams
    .command(verb)
    .description(blocked ? "Block a team: its keys' requests get 403 TEAM_BLOCKED at once" : 'Unblock a team')
    .argument('<team>', 'team name or id')
    .action(lazy(load.accounts, (cmd, config, _flags: object, team: string) => cmd.blockTeam(config, team, blocked)));
}
program
  .command('credits')
  .description("Add to a team's credits")
  .command('add')
  .description('Add AMOUNT dollars of credits to a team')
  .requiredOption('--team <team>', 'team name or id')
  .argument('<amount>', 'dollars, e.g. 25 or 2.50')
  .action(
    lazy(load.accounts, (cmd, config, flags: { team: string }, amount: string) =>
      cmd.addCredits(config, flags.team, amount),
    ),
  );
program
  .command('usage')
  .description('What each team and key spent, by operation, over the last days')
  .option('--days <n>', 'the last N UTC days, today included', '30')
  .option('--json', 'print JSON')
  .action(lazy(load.accounts, (cmd, config, flags: { days?: string; json?: boolean }) => cmd.usage(config, flags)));

const monitors = program.command('monitors').description('Inspect monitors, their runs and webhook deliveries');
monitors
  .command('list')
  .description('List monitors, newest first, with their schedule')
  .option('--status <status>', 'active, paused or disabled')
  .option('--json', 'print JSON')
  .action(
    lazy(load.monitors, (cmd, config, flags: { status?: string; json?: boolean }) => cmd.listMonitors(config, flags)),
  );
monitors
  .command('runs')
  .description("List a monitor's last 50 runs, with why they failed")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .action(lazy(load.monitors, (cmd, config, flags: { json?: boolean }, id: string) => cmd.listRuns(config, id, flags)));
monitors
  .command('deliveries')
  .description("List a monitor's last 50 webhook deliveries and every attempt (HTTP status, error)")
  .argument('<id>', 'monitor id')
  .option('--json', 'print JSON')
  .action(
    lazy(load.monitors, (cmd, config, flags: { json?: boolean }, id: string) => cmd.listDeliveries(config, id, flags)),
  );

program
  .command('audit')
  .description("Changes made to teams' accounts (keys, flags, credits, budgets): who, what, when, newest first")
  .option('--team <team>', 'one team (name or id)')
  .option('--limit <n>', 'records to show (1-100)', '50')
  .option('--json', 'print JSON')
  .action(
    lazy(load.accounts, (cmd, config, flags: { team?: string; limit?: string; json?: boolean }) =>
      cmd.audit(config, flags),
    ),
  );

program
  .command('secrets')
  .description('Stored secrets sealed with TRAWL_SECRET_KEY')
  .command('reseal')
  .description(
    'After rotating TRAWL_SECRET_KEY (old key in TRAWL_SECRET_KEY_PREVIOUS): seal every stored secret under the new key',
  )
  .action(lazy(load.secrets, (cmd, config) => cmd.reseal(config)));

program
  .command('prune')
  .description(
    'Delete what is past its retention now (usage folded into monthly totals first); one process at a time (docs/operations.md#retention)',
  )
  .option('--dry-run', 'only count what would be deleted; change nothing')
  .option('--json', 'print JSON')
  .action(lazy(load.prune, (cmd, config, flags: PruneFlags) => cmd.prune(config, flags)));

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
  .action(
    lazy(load.keys, (cmd, config, flags: KeyFlags & { name: string }) => cmd.createKey(config, flags.name, flags)),
  );
keys
  .command('list')
  .description('List API keys (never the keys themselves)')
  .option('--json', 'print JSON')
  .action(lazy(load.keys, (cmd, config, flags: { json?: boolean }) => cmd.listKeys(config, flags.json === true)));
keys
  .command('update')
  .description("Replace a key's scopes (e.g. narrow a key that holds admin); takes effect at once")
  .argument('<id>', 'key id as shown by keys list')
  .requiredOption('--scopes <list>', 'comma-separated scopes the key holds from now on')
  .action(lazy(load.keys, (cmd, config, flags: { scopes: string }, id: string) => cmd.updateKey(config, id, flags)));
keys
  .command('revoke')
  .description('Revoke an API key by id (or by the key itself); takes effect at once')
  .argument('<id>', 'key id as shown by keys list')
  .action(lazy(load.keys, (cmd, config, _flags: object, id: string) => cmd.revokeKey(config, id)));

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
  .action(lazy(load.crawl, (cmd, config, flags: CrawlFlags, urls: string[]) => cmd.runCrawl(config, urls, flags)));

program
  .command('import')
  .description('Import JSONL records (optionally gzipped) or folders of HTML/Markdown/text files as documents')
  .argument('<path...>', 'JSONL files (.jsonl, .jsonl.gz) and folders')
  .option('--code', 'the records are code ({_id, code, language?, path?, url?}) for the code index (/context)')
  .option('--collection <name>', 'collection of the documents (default: file base name or folder name)')
  .option('--batch <n>', 'documents per transaction (default 4096; 1000 with --code)')
  .option('--json', 'print the summary as JSON')
  .addOption(progress())
  .action(lazy(load.import, (cmd, config, flags: ImportFlags, paths: string[]) => cmd.runImport(config, paths, flags)));

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
  .action(
    lazy(load.index, (cmd, config, flags: IndexFlags, targets: string[]) => {
      if (targets.length === 1 && targets[0] === 'rebuild') return cmd.rebuildIndex(config);
      if (targets.length === 1 && targets[0] === 'stats') return cmd.indexStats(config);
      return cmd.indexCode(config, targets, flags);
    }),
  );

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
  .command('backup')
  .description(
    "Copy the data directory's databases (documents, keys, monitors, search and code indexes) into one file, " +
      'consistent while a server writes; never secret.key (docs/operations.md#backups-and-restore)',
  )
  .requiredOption('--to <file>', 'the backup file to write (a tar holding the databases and a manifest; mode 0600)')
  .option('--with-cache', 'also copy the page cache (cache.sqlite)')
  .option('--force', 'replace the file if it exists')
  .option('--progress <mode>', 'progress lines on stderr for long copies: auto or off')
  .action(lazy(load.backup, (cmd, config, flags: BackupFlags) => cmd.runBackup(config, flags)));

program
  .command('restore')
  .description(
    "Restore a backup into a data directory: checks checksums, integrity, schema and the webhook secrets' key " +
      'before replacing anything; refuses while a process uses the directory (docs/operations.md#backups-and-restore)',
  )
  .requiredOption('--from <file>', 'the backup file (made by trawl backup)')
  .option(
    '--force',
    'replace the databases of a directory that holds some, or restore although the key opens no webhook secret',
  ) // prettier-ignore
  .option('--progress <mode>', 'progress lines on stderr for long copies: auto or off')
  .action(lazy(load.backup, (cmd, config, flags: RestoreFlags) => cmd.runRestore(config, flags, process.env)));

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
  .action(
    lazy(load.doctor, (cmd, config, flags: { json?: boolean }) => cmd.runDoctor(config, { json: flags.json === true })),
  );

// Every command, and each subcommand of a group (keys create, teams list...), takes the flags of the
// settings its top-level command uses.
for (const top of program.commands) {
  for (const cmd of top.commands.length > 0 ? top.commands : [top]) withSettings(cmd, top.name());
}

// `--robots false`, as written before boolean flags stood alone, still works: it is read as `--no-robots`
let argv: string[];
try {
  argv = booleanFlagArgs(process.argv, BOOLEAN_FLAGS);
} catch (err) {
  fail(err);
}
program.parseAsync(argv!).catch(fail);
