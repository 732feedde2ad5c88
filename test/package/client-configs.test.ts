/**
 * The client configs of docs/install.md, each run exactly as written: the MCP server entry of every
 * client's block (JSON, TOML, or the command line after `--` of `claude mcp add`) is started with the
 * install directory put in for `/home/you/trawl`, and the SDK's client completes initialize and tools/list.
 * The install directory is TRAWL_PACKAGE_DIR when scripts/package-test.mjs runs this file against the
 * installed tarball; otherwise a directory laid out as an install, whose node_modules/trawl is this
 * checkout (built).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_GROUPS } from '../../src/mcp/catalog.js';
import { ROOT } from '../helpers/app.js';

const DOC = 'docs/install.md';
const INSTALL_DIR = '/home/you/trawl';
const CLIENTS = ['Claude Code', 'Cursor', 'VS Code', 'Codex', 'Gemini CLI', 'Claude Desktop'];

interface ServerEntry {
  client: string;
  name: string;
  command: string;
  args: string[];
}

/** The `### Client` sections under `## Client configs`, each with its fenced code blocks. */
function sections(markdown: string): Map<string, { lang: string; code: string }[]> {
  const part = markdown.split(/^## /m).find((s) => s.startsWith('Client configs'));
  if (!part) throw new Error(`${DOC} has no "## Client configs" section`);
  const out = new Map<string, { lang: string; code: string }[]>();
  for (const section of part.split(/^### /m).slice(1)) {
    const title = section.slice(0, section.indexOf('\n')).trim();
    const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
    out.set(title, blocks);
  }
  return out;
}

/** The words of a command line (double or single quotes group words; no other shell syntax is used). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** `[mcp_servers.NAME]` tables of a TOML block whose values are strings or arrays of strings. */
function tomlServers(code: string): Record<string, Record<string, unknown>> {
  const tables: Record<string, Record<string, unknown>> = {};
  let current: Record<string, unknown> | undefined;
  for (const raw of code.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = /^\[mcp_servers\.([\w-]+)\]$/.exec(line);
    if (header) tables[header[1]!] = current = {};
    else if (/^\[/.test(line)) current = undefined;
    else {
      const kv = /^([\w-]+)\s*=\s*(.+)$/.exec(line);
      if (!kv || !current) throw new Error(`unexpected TOML line: ${line}`);
      current[kv[1]!] = JSON.parse(kv[2]!); // basic strings and arrays of them read as JSON
    }
  }
  return tables;
}

/** Every MCP server entry that a client section's blocks configure. */
function entriesOf(client: string, blocks: { lang: string; code: string }[]): ServerEntry[] {
  const entries: ServerEntry[] = [];
  const add = (name: string, s: Record<string, unknown>) => {
    if (typeof s.command === 'string') entries.push({ client, name, command: s.command, args: (s.args as string[]) ?? [] }); // prettier-ignore
  };
  for (const { lang, code } of blocks) {
    if (lang === 'json') {
      const json = JSON.parse(code) as Record<string, Record<string, Record<string, unknown>>>;
      for (const [name, s] of Object.entries({ ...json.mcpServers, ...json.servers })) add(name, s);
    } else if (lang === 'toml') {
      for (const [name, s] of Object.entries(tomlServers(code))) add(name, s);
    } else if (lang === 'sh') {
      for (const line of code.split('\n').filter((l) => l.startsWith('claude mcp add '))) {
        const w = words(line);
        const dashes = w.indexOf('--');
        const name = w.slice(3, dashes).filter((x, i, all) => !x.startsWith('-') && !all[i - 1]?.startsWith('-')).pop(); // prettier-ignore
        entries.push({ client, name: name ?? '', command: w[dashes + 1]!, args: w.slice(dashes + 2) });
      }
    }
  }
  return entries;
}

const entries = [...sections(fs.readFileSync(path.join(ROOT, DOC), 'utf8'))].flatMap(([client, blocks]) =>
  entriesOf(client, blocks),
);

let installDir = process.env.TRAWL_PACKAGE_DIR ?? '';
let scratch = '';

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-configs-'));
  if (!installDir) {
    // an install's layout: <dir>/node_modules/trawl is the package (here the built checkout)
    installDir = path.join(scratch, 'install');
    fs.mkdirSync(path.join(installDir, 'node_modules'), { recursive: true });
    fs.symlinkSync(ROOT, path.join(installDir, 'node_modules', 'trawl'), 'dir');
  }
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe(`${DOC}: client configs`, () => {
  it('configure each client named in the issue once, as a stdio server named trawl run by node (never npx)', () => {
    expect(entries.map((e) => e.client).sort()).toEqual([...CLIENTS].sort());
    for (const e of entries) {
      expect(e.name, e.client).toBe('trawl');
      expect(e.command, e.client).toBe('node'); // npx would fetch a registry package named trawl
      expect(e.args, e.client).toEqual([`${INSTALL_DIR}/node_modules/trawl/dist/bin/cli.js`, 'mcp']);
    }
  });

  it.each(CLIENTS)('%s: its command completes initialize and tools/list', async (client) => {
    const entry = entries.find((e) => e.client === client);
    expect(entry, client).toBeDefined();
    const args = entry!.args.map((a) => a.replaceAll(INSTALL_DIR, installDir));
    const transport = new StdioClientTransport({
      command: entry!.command,
      args,
      env: { ...getDefaultEnvironment(), TRAWL_DATA_DIR: fs.mkdtempSync(path.join(scratch, 'data-')), TRAWL_LOG_LEVEL: 'warn' }, // prettier-ignore
      stderr: 'pipe',
    });
    const mcp = new Client({ name: `config-test (${client})`, version: '1.0.0' });
    await mcp.connect(transport);
    try {
      expect(mcp.getServerVersion()?.name).toBe('trawl');
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toEqual(TOOL_GROUPS.default);
    } finally {
      await mcp.close();
    }
  });
});
