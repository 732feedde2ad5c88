/**
 * The settings as documentation, generated from SETTINGS: the table of docs/configuration.md and the
 * CLI's flag list (src/config/flags.ts). `node scripts/settings-table.mjs` writes both; test/unit/docs.test.ts
 * fails when either is stale. Which commands take a setting is decided here, once.
 */

/** What this module reads of a SETTINGS row (a row of src/config/settings.ts passes as it is). */
export interface SettingRow {
  env: string;
  aliases?: readonly string[];
  flag: string;
  default: unknown;
  doc: string;
}

/** Every command that builds an app (and takes the app's settings). */
export const APP_COMMANDS = ['serve', 'mcp', 'crawl', 'import', 'index', 'doctor'] as const;
/** The admin commands, which only open the data directory. */
export const ADMIN_COMMANDS = [
  'keys',
  'teams',
  'credits',
  'usage',
  'audit',
  'monitors',
  'secrets',
  'backup',
  'restore',
  'prune',
] as const;

/** Settings of the HTTP listener: `trawl serve` uses them, `trawl doctor` checks them. */
const LISTENER_SETTINGS = [
  'host',
  'port',
  'workers',
  'maxBodyBytes',
  'metricsListen',
  'metricsPublic',
  'allowedHosts',
  'allowedOrigins',
  'createFirstKey',
  'mcpKeyless',
  'console',
  'consoleSessionIdleMinutes',
  'oauth',
  'oauthDcr',
  'publicUrl',
  'authIssuer',
  'oidcIssuer',
  'oidcClientId',
  'oidcClientSecret',
  'authAudience',
  'authTeamClaim',
  'authEmailTeams',
];
/** Where the durable state is: every command opens it. */
const STORE_SETTINGS = [
  'dataDir',
  'databaseUrl',
  'databaseSchema',
  'databasePoolSize',
  'secretKey',
  'secretKeyPrevious',
];
/** Settings of the MCP door, over HTTP (`serve`) and stdio (`mcp`). */
const MCP_SETTINGS = ['tools', 'mcpBetas', 'mcpMaxTokens', 'mcpMaxTasks', 'mcpTaskTtlMs', 'mcpTaskMaxTtlMs'];

/** How long each kind of record is kept: the serving processes' sweep and `trawl prune` read them. */
const RETENTION_SETTINGS = [
  'retainUsageDays',
  'retainAgentEventsDays',
  'retainMonitorRunsDays',
  'retainDeliveriesDays',
  'retainMcpDays',
  'retainCrawlFrontierDays',
  'pruneIntervalMinutes',
];

/** Defaults that are computed, or read better in words than as a value. */
const DEFAULT_WORDS: Record<string, string> = {
  dataDir: 'the per-user data directory',
  metricsListen: 'none: `/metrics` on the main listener, for `admin` keys',
  userAgent: '`Trawl/<version> (+https://github.com/trawl)`',
  allowedHosts: 'the loopback names, on a loopback host',
  publicUrl: 'the listener, `http://<host>:<port>`',
  authAudience: 'the resource URL',
  authEmailTeams: 'none',
  tools: 'the default set',
  modelInputPrice: 'list price of known models, else `0`',
  modelOutputPrice: 'list price of known models, else `0`',
  prices: "the spec's prices",
  secretKey: 'a key made in `<data dir>/secret.key`',
  codeModel: 'the shipped model, `models/code-retriever.bin` in the package',
};

/** The commands a setting applies to, in the order of `trawl --help`. */
export function commandsOf(key: string): readonly string[] {
  // `trawl migrate` seals secrets under the replicas' key, and takes its store from its own flags
  if (key === 'secretKey' || key === 'secretKeyPrevious') return [...APP_COMMANDS, ...ADMIN_COMMANDS, 'migrate'];
  if (STORE_SETTINGS.includes(key)) return [...APP_COMMANDS, ...ADMIN_COMMANDS];
  if (LISTENER_SETTINGS.includes(key)) return ['serve', 'doctor'];
  if (MCP_SETTINGS.includes(key)) return ['serve', 'mcp', 'doctor'];
  if (RETENTION_SETTINGS.includes(key)) return ['serve', 'mcp', 'prune'];
  return APP_COMMANDS;
}

/** Keys named in this module's lists that SETTINGS lacks (a renamed setting leaves one behind). */
export function unknownKeys(settings: Record<string, SettingRow>): string[] {
  const named = [
    ...STORE_SETTINGS,
    ...LISTENER_SETTINGS,
    ...MCP_SETTINGS,
    ...Object.keys(DEFAULT_WORDS),
    ...Object.keys(PLACEHOLDERS),
  ];
  return named.filter((key) => !(key in settings));
}

/** Value placeholders that say more than the type would. */
const PLACEHOLDERS: Record<string, string> = {
  host: '<host>',
  port: '<port>',
  metricsListen: '<host:port>',
  dataDir: '<dir>',
  databaseSchema: '<name>',
  databasePoolSize: '<n>',
  logLevel: '<level>',
  logFormat: '<auto|json|pretty>',
  userAgent: '<ua>',
  browser: '<path>',
  codeModel: '<path|off>',
  model: '<name>',
  embeddingsModel: '<name>',
  modelPrefer: '<server|client>',
  oauth: '<off|on>',
  oidcIssuer: '<url>',
  oidcClientId: '<id>',
  oidcClientSecret: '<secret>',
  secretKeyPrevious: '<key>',
  prices: '<json>',
  x402Rails: '<json>',
  privateAllowlist: '<cidrs>',
  allowedHosts: '<hosts>',
  allowedOrigins: '<origins>',
  tools: '<names>',
  mcpBetas: '<tokens>',
  authAudience: '<audiences>',
  authTeamClaim: '<claim>',
  authEmailTeams: '<domain=team,...>',
  otlpEndpoint: '<url>',
  otlpTracesEndpoint: '<url>',
  tracePropagate: '<none|providers|webhooks|all>',
};

/**
 * The value placeholder of a flag: `<n>`, `<url>`, ... from the setting's name and default; none for a
 * boolean, which is a flag alone (`--robots`) or negated (`--no-robots`), as booleanFlagArgs reads it.
 */
export function placeholderOf(key: string, row: SettingRow): string {
  if (PLACEHOLDERS[key]) return PLACEHOLDERS[key];
  if (typeof row.default === 'boolean') return '';
  if (Array.isArray(row.default)) return '<list>';
  if (/Url$/.test(key)) return '<url>';
  if (/Ms$/.test(key)) return '<ms>';
  if (/Hours$/.test(key)) return '<hours>';
  if (/Key$/.test(key)) return '<key>';
  if (/(Price|Cost)$/.test(key)) return '<dollars>';
  if (typeof row.default === 'number') return '<n>';
  return '<value>';
}

/** The default as the table shows it: words for computed ones, `none` for unset ones. */
export function defaultText(key: string, row: SettingRow): string {
  if (DEFAULT_WORDS[key]) return DEFAULT_WORDS[key];
  const value = row.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  if (typeof value === 'number' && /Bytes$/.test(key) && value % 1_048_576 === 0) {
    return `\`${value}\` (${value / 1_048_576} MiB)`;
  }
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

/** The first sentence of a doc line ("e.g." does not end one), without Markdown backticks. */
export function firstSentence(doc: string): string {
  const end = /(?<!\be\.g|\bi\.e)\.(?:\s|$)/.exec(doc);
  return (end ? doc.slice(0, end.index + 1) : doc).replaceAll('`', '');
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function commandsText(key: string): string {
  const commands = commandsOf(key);
  if (commands.length === APP_COMMANDS.length + ADMIN_COMMANDS.length) return 'all';
  return commands.join(', ');
}

/** The Markdown table of every setting: variable, flag, default, commands, meaning (unformatted). */
export function settingsMarkdownTable(settings: Record<string, SettingRow>): string {
  const rows = Object.entries(settings).map(([key, row]) => {
    const names = [`\`${row.env}\``, ...(row.aliases ?? []).map((a) => `(or \`${a}\`)`)].join(' ');
    const placeholder = placeholderOf(key, row);
    const flag = placeholder
      ? `\`${row.flag} ${placeholder}\``
      : `\`${row.flag}\`, \`${row.flag.replace(/^--/, '--no-')}\``;
    return `| ${cell(names)} | ${cell(flag)} | ${cell(defaultText(key, row))} | ${commandsText(key)} | ${cell(row.doc)} |`;
  });
  return ['| Variable | Flag | Default | Commands | Meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** One flag of the CLI, as src/config/flags.ts lists it. */
export interface SettingFlag {
  key: string;
  flags: string;
  help: string;
  commands: readonly string[];
}

/** Every setting as a CLI flag, with a help line naming its variable and default. */
export function settingFlags(settings: Record<string, SettingRow>): SettingFlag[] {
  return Object.entries(settings).map(([key, row]) => ({
    key,
    flags: `${row.flag} ${placeholderOf(key, row)}`.trim(),
    help: `${firstSentence(row.doc).replace(/\.$/, '')} (env ${row.env}; default ${defaultText(key, row).replaceAll('`', '')})`,
    commands: commandsOf(key),
  }));
}

/** The source of src/config/flags.ts (unformatted; the script and the test run Prettier on it). */
export function flagsModuleSource(settings: Record<string, SettingRow>): string {
  const flags = settingFlags(settings);
  const entries = (field: 'flags' | 'help') => flags.map((f) => `  ${f.key}: ${JSON.stringify(f[field])},`).join('\n');
  return `// Generated by scripts/settings-table.mjs from SETTINGS in src/config/settings.ts; do not edit.
/** Every setting as a CLI flag, free of zod so that the CLI builds its commands without loading the config. */
import { commandsOf, type SettingFlag } from './settings-doc.js';

/** Each setting's flag and its value placeholder, in the order of SETTINGS. */
const FLAGS: Record<string, string> = {
${entries('flags')}
};

/** Each setting's help line: what it does, its variable and its default. */
const HELP: Record<string, string> = {
${entries('help')}
};

/** Flags of the settings, with the commands that take each (settings-doc.ts decides which). */
export const SETTING_FLAGS: readonly SettingFlag[] = Object.keys(FLAGS).map((key) => ({
  key,
  flags: FLAGS[key]!,
  help: HELP[key]!,
  commands: commandsOf(key),
}));
`;
}

/** The marker before the generated table in docs/configuration.md. */
export const TABLE_START = '<!-- settings-table: generated by scripts/settings-table.mjs; do not edit -->';
/** The marker after it. */
export const TABLE_END = '<!-- settings-table: end -->';

/** `doc` with the text between the markers replaced by `table`; throws when a marker is missing. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/configuration.md lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n\n${table.trim()}\n\n${doc.slice(end)}`;
}

/** The words a boolean flag may be given as a value, for the command lines written before flags were bare. */
const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false, yes: true, no: false }; // prettier-ignore

/**
 * The command line with each boolean setting flag written as the CLI declares it: `--robots false` and
 * `--robots=false` become `--no-robots`, `--robots true` becomes `--robots`; a bare `--robots` stays (the
 * next word is then an argument or another flag, not the flag's value). `--robots=maybe` is refused with
 * the words it may take. `booleans` are the flags (`--robots`) of the boolean settings.
 */
export function booleanFlagArgs(argv: readonly string[], booleans: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!booleans.has(name)) {
      out.push(arg);
      continue;
    }
    const given = eq > 0 ? arg.slice(eq + 1) : argv[i + 1];
    const value = given === undefined ? undefined : BOOLEAN_WORDS[given.toLowerCase()];
    if (eq > 0 && value === undefined) {
      const err = new Error(`Invalid flag ${arg}: write ${name} alone, --no-${name.slice(2)}, or ${name}=true|false`);
      err.name = 'ConfigError'; // a usage error, as the config's own (exit 2)
      throw err;
    }
    if (value !== undefined && eq < 0) i++; // the word after it was its value
    out.push(value === false ? `--no-${name.slice(2)}` : name);
  }
  return out;
}
