/**
 * The docs stay in step with the code: the settings table and the CLI's flag list are generated from
 * SETTINGS and current, every link and path resolves inside the repository, tool counts match the catalog.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createHmac, timingSafeEqual } from 'node:crypto';
import prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/config.js';
import { SETTING_FLAGS } from '../../src/config/flags.js';
import {
  flagsModuleSource,
  settingsMarkdownTable,
  TABLE_END,
  TABLE_START,
  unknownKeys,
  withTable,
} from '../../src/config/settings-doc.js';
import { ALL_TOOLS, TOOL_GROUPS } from '../../src/mcp/catalog.js';
import { signatureHeader } from '../../src/fetch/webhook-signing.js';
import { ROOT } from '../helpers/app.js';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const readme = read('README.md');
const CONFIG_DOC = 'docs/configuration.md';

async function formatted(text: string, file: string): Promise<string> {
  const filepath = path.join(ROOT, file);
  return prettier.format(text, { ...(await prettier.resolveConfig(filepath)), filepath });
}

/** Every Markdown file of the repository (tracked, or new and not ignored). */
function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT });
  return [...new Set(out.toString().split('\n').filter(Boolean))].filter((f) => fs.existsSync(path.join(ROOT, f)));
}

/** Markdown without fenced code blocks, and the inline code spans it holds (taken out of the prose). */
function proseOf(markdown: string): { prose: string; spans: string[] } {
  const spans: string[] = [];
  const prose = markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => {
      spans.push(code.trim());
      return '';
    });
  return { prose, spans };
}

/** Link targets of Markdown prose: inline links and images, reference definitions and autolinks. */
function linkTargets(prose: string): string[] {
  const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const refs = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!);
  const auto = [...prose.matchAll(/<((?:https?|ftp|mailto|file):[^>\s]+)>/g)].map((m) => m[1]!);
  return [...inline, ...refs, ...auto];
}

/** GitHub's anchors of a Markdown file's headings (lower case, punctuation dropped, `-N` for repeats). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const body = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of body.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** What is wrong with one link of `file`, or undefined when it resolves to a file (and heading) of the repository. */
function linkProblem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return 'leaves the repository';
  if (target.startsWith('/')) return 'is an absolute path';
  const [rawPath, anchor] = target.split('#') as [string, string | undefined];
  const resolved = rawPath ? path.resolve(ROOT, path.dirname(file), decodeURI(rawPath)) : path.join(ROOT, file);
  const inside = path.relative(ROOT, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return 'names no file of the repository';
  if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
    return `names no heading #${anchor}`;
  }
  return undefined;
}

describe('the settings table and the flags', () => {
  it('names only settings that exist', () => {
    expect(unknownKeys(SETTINGS)).toEqual([]);
  });

  it('docs/configuration.md holds the table generated from SETTINGS (node scripts/settings-table.mjs)', async () => {
    const doc = read(CONFIG_DOC);
    const expected = await formatted(withTable(doc, settingsMarkdownTable(SETTINGS)), CONFIG_DOC);
    expect(doc, 'stale: run node scripts/settings-table.mjs').toBe(expected);
    const table = doc.slice(doc.indexOf(TABLE_START), doc.indexOf(TABLE_END));
    for (const s of Object.values(SETTINGS)) {
      // a flag with its value's placeholder, or a boolean's flag and its negation
      const flag = typeof s.default === 'boolean' ? `\`${s.flag}\`, \`${s.flag.replace(/^--/, '--no-')}\`` : `\`${s.flag} <[^\`]*>\``; // prettier-ignore
      expect(table).toMatch(new RegExp(`^\\|\\s*\`${s.env}\`[^|]*\\|\\s*${flag}\\s*\\|`, 'm'));
    }
  });

  it('src/config/flags.ts, the flags the CLI builds its commands from, is generated from SETTINGS', async () => {
    const expected = await formatted(flagsModuleSource(SETTINGS), 'src/config/flags.ts');
    expect(read('src/config/flags.ts'), 'stale: run node scripts/settings-table.mjs').toBe(expected);
    expect(SETTING_FLAGS.map((f) => f.key)).toEqual(Object.keys(SETTINGS));
    for (const f of SETTING_FLAGS) {
      expect(f.commands.length, f.key).toBeGreaterThan(0);
      expect(f.help, f.key).not.toMatch(/README/);
    }
  });

  it('gives every setting a default in the table, and every flag its variable in the help', () => {
    for (const f of SETTING_FLAGS) {
      const s = SETTINGS[f.key as keyof typeof SETTINGS];
      expect(f.help).toContain(`(env ${s.env}; default `);
    }
    expect(SETTING_FLAGS.find((f) => f.key === 'allowPrivateNetwork')!.commands).toEqual(
      expect.arrayContaining(['serve', 'mcp', 'crawl', 'import', 'index', 'doctor']),
    );
  });

  it('the README points to the table instead of keeping a copy of it', () => {
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5)); // prettier-ignore
    expect(section).toContain('](docs/configuration.md)');
    expect(section).not.toMatch(/^\|/m);
  });
});

describe('links and paths in the docs', () => {
  const files = markdownFiles();

  it('finds the README and the docs', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', CONFIG_DOC, 'docs/api.md']));
  });

  it('every link resolves to a file (and heading) inside the repository', () => {
    const problems: string[] = [];
    for (const file of files) {
      for (const target of linkTargets(proseOf(read(file)).prose)) {
        const problem = linkProblem(file, target);
        if (problem) problems.push(`${file}: (${target}) ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every relative path in code spans (`../x`, `./x`) of the README and docs/ stays inside the repository', () => {
    const problems: string[] = [];
    for (const file of files.filter((f) => f === 'README.md' || f.startsWith('docs/'))) {
      for (const span of proseOf(read(file)).spans.filter((s) => /^\.\.?\/[\w./-]+$/.test(s))) {
        const problem = linkProblem(file, span);
        if (problem) problems.push(`${file}: \`${span}\` ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('checks links for real: a link out, an escape and a missing heading are each found', () => {
    expect(linkProblem('README.md', 'https://example.com/')).toBe('leaves the repository');
    expect(linkProblem('docs/api.md', '../../shared/spec/service-spec.md')).toBe('points outside the repository');
    expect(linkProblem('docs/api.md', 'accounts.md#no-such-heading')).toBe('names no heading #no-such-heading');
    expect(linkProblem('docs/api.md', 'accounts.md#scopes')).toBeUndefined();
    expect(linkTargets(proseOf('a [x](docs/a.md) and `[y](b.md)` and\n```\n[z](c.md)\n```\n').prose)).toEqual([
      'docs/a.md',
    ]);
  });
});

describe('README', () => {
  it('opens with the two set-up commands', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = firstBlock.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^npm ci && npm start\b/);
    expect(lines[1]).toMatch(/^npm ci && npm test\b/);
  });

  it('says on its first screen what Trawl is, the two commands, and where to go next', () => {
    const firstScreen = readme.split('\n## ')[0]!;
    expect(firstScreen).toMatch(/^# Trawl\n\nTrawl is a search and web-contents service for coding agents/);
    expect(firstScreen).toMatch(/\*\*Where next\*\*/);
    for (const doc of ['docs/getting-started.md', 'docs/install.md', 'docs/api.md', 'docs/operations.md'])
      expect(firstScreen).toContain(`](${doc})`);
    expect(firstScreen).toMatch(/PostgreSQL store against the server at\s+`127\.0\.0\.1:5432`/);
    expect(readme).not.toMatch(/in\s+progress/);
  });

  it('states the search quality docs/search.md measured (the auto row of its SciFact table, to 3 places)', () => {
    const auto = /^\| `auto`\s*\|\s*([\d.]+)\s*\|/m.exec(read('docs/search.md'));
    expect(auto, 'docs/search.md has the SciFact table').not.toBeNull();
    const stated = /nDCG@10 ([\d.]+) on BEIR SciFact/.exec(readme);
    expect(stated?.[1]).toBe(Number(auto![1]).toFixed(3));
  });

  it('asks /contents for text in every curl example, since it returns only what a request asks for', () => {
    for (const file of ['README.md', 'docs/getting-started.md']) {
      const examples = [...read(file).matchAll(/\/contents [^\n]*\\\n\s*-d '([^']*)'/g)].map((m) => m[1]!);
      expect(examples.length, file).toBeGreaterThan(0);
      for (const body of examples) expect(body, `${file}: ${body}`).toMatch(/"(text|highlights|summary)"/);
    }
  });

  it('counts and names the default MCP tools and the opt-in ones as the catalog has them', () => {
    const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    const m = /serves (\w+) tools, ((?:`\w+`(?:, | and )?)+)/.exec(readme);
    expect(m, 'the README says how many tools the MCP door serves by default').not.toBeNull();
    const names = (list: string) => [...list.matchAll(/`(\w+)`/g)].map((x) => x[1]);
    expect(WORDS.indexOf(m![1]!)).toBe(TOOL_GROUPS.default!.length);
    expect(names(m![2]!)).toEqual(TOOL_GROUPS.default);
    const others = /the others \(((?:`\w+`(?:, | and )?)+)\)/.exec(readme);
    expect(names(others![1]!)).toEqual(ALL_TOOLS.filter((t) => !TOOL_GROUPS.default!.includes(t)));
  });

  it('docs/mcp.md counts the default set and every tool as the catalog has them', () => {
    const mcpDoc = read('docs/mcp.md');
    expect(mcpDoc).toMatch(new RegExp(`^\\| default set\\s*\\|\\s*${TOOL_GROUPS.default!.length}\\s*\\|`, 'm'));
    expect(mcpDoc).toMatch(new RegExp(`^\\| every tool\\s*\\|\\s*${ALL_TOOLS.length}\\s*\\|`, 'm'));
  });

  it('names every MCP tool in docs/mcp.md', () => {
    const mcpDoc = read('docs/mcp.md');
    for (const tool of ALL_TOOLS) expect(mcpDoc).toContain(`\`${tool}\``);
  });

  it("shows a webhook receiver's signature check that accepts Trawl's signatures and nothing else", () => {
    const block = /```js\n([\s\S]*?function verify[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const body = block!.replace(/^import .*$/m, '') + '\nreturn verify;';
    type Verify = (raw: string, header: string, secret: string, maxAge?: number) => boolean;
    const verify = new Function('createHmac', 'timingSafeEqual', body)(createHmac, timingSafeEqual) as Verify;
    const raw = JSON.stringify({ id: 'evt_1', object: 'event', type: 'monitor.created', data: {} });
    const now = Math.floor(Date.now() / 1000);
    expect(verify(raw, signatureHeader('whsec_abc', raw, now), 'whsec_abc')).toBe(true);
    expect(verify(raw + ' ', signatureHeader('whsec_abc', raw, now), 'whsec_abc')).toBe(false);
    expect(verify(raw, signatureHeader('whsec_other', raw, now), 'whsec_abc')).toBe(false);
    expect(verify(raw, signatureHeader('whsec_abc', raw, now - 600), 'whsec_abc')).toBe(false);
  });
});
