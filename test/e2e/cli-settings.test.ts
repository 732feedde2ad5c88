/**
 * Every setting is a flag of each command that uses it, in the built CLI: each command's help lists
 * exactly its settings' flags, every `trawl <command> --flag` the docs show is accepted, and
 * `trawl crawl --allow-private-network true` reads a loopback site as the variable does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTING_FLAGS } from '../../src/config/flags.js';
import { CLI, ROOT, tempDir } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function trawl(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The names under "Commands:" in a help text, `help` left out. */
const commandsIn = (help: string) =>
  [...(help.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help'); // prettier-ignore
/** The long flags of a help text's option lines. */
const flagsIn = (help: string) => new Set([...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!));
const SETTING_FLAG_NAMES = new Set(SETTING_FLAGS.map((s) => s.flags.split(' ')[0]!));

/** Every command and subcommand of the CLI ("keys create", "crawl", ...) with the flags its help lists. */
async function commandFlags(): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const top = commandsIn((await trawl(['--help'])).stdout);
  await Promise.all(
    top.map(async (name) => {
      const help = (await trawl([name, '--help'])).stdout;
      const subs = commandsIn(help);
      if (subs.length === 0) return void out.set(name, flagsIn(help));
      for (const sub of subs) out.set(`${name} ${sub}`, flagsIn((await trawl([name, sub, '--help'])).stdout));
    }),
  );
  return out;
}

let commands: Map<string, Set<string>>;
let site: FixtureSite;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  [commands, site] = await Promise.all([commandFlags(), startFixtureSite()]);
}, 60_000);
afterAll(async () => {
  await site.close();
  for (const cleanup of cleanups) cleanup();
});

describe('settings as flags', () => {
  it('finds the commands that build an app and the admin ones', () => {
    expect([...commands.keys()]).toEqual(
      expect.arrayContaining(['serve', 'mcp', 'crawl', 'import', 'index', 'doctor', 'keys create', 'teams list', 'credits add', 'usage', 'monitors runs']), // prettier-ignore
    );
  });

  it("each command's help lists exactly the flags of the settings it uses", () => {
    for (const [command, flags] of commands) {
      const top = command.split(' ')[0]!;
      const expected = SETTING_FLAGS.filter((s) => s.commands.includes(top)).map((s) => s.flags.split(' ')[0]!);
      expect([...flags].filter((f) => SETTING_FLAG_NAMES.has(f)).sort(), command).toEqual(expected.sort());
    }
    expect(commands.get('crawl')).toContain('--allow-private-network');
    expect(commands.get('keys create')).toContain('--data-dir');
    expect(commands.get('crawl')).not.toContain('--port');
  });

  it('every `trawl <command> … --flag` in the README and docs/ is a flag of that command', () => {
    const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md')); // prettier-ignore
    const problems: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const code = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].flatMap((m) => m[1]!.split('\n'));
      const spans = [...text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
      for (const line of [...code, ...spans]) {
        for (const m of line.matchAll(/\btrawl ([a-z]+)(?: ([a-z|]+))?([^\n]*?)(?=\btrawl |$)/g)) {
          const [, top, sub, rest] = m;
          const names = commands.has(top!) ? [top!] : (sub ?? '').split('|').map((s) => `${top} ${s}`).filter((n) => commands.has(n)); // prettier-ignore
          for (const name of names) {
            for (const flag of (rest ?? '').matchAll(/(?:^|[\s[])(--[a-z][a-z0-9-]*)/g)) {
              checked++;
              if (!commands.get(name)!.has(flag[1]!))
                problems.push(`${file}: trawl ${name} ${flag[1]} (in "${line.trim()}")`);
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it("every flag and command in trawl doctor's next steps exists", async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    // prettier-ignore
    const args = ['doctor', '--json', '--data-dir', dir, '--port', '9', '--model-base-url', 'http://127.0.0.1:9/v1',
      '--searxng-url', 'http://127.0.0.1:9', '--upstream-url', 'http://127.0.0.1:9', '--embeddings-url', 'http://127.0.0.1:9/v1', '--browser', dir];
    const report = JSON.parse((await trawl(args)).stdout) as { nextSteps: { message: string; fix?: string }[] };
    const fixes = report.nextSteps.map((step) => step.fix ?? '');
    expect(fixes.length).toBeGreaterThan(8);
    const problems: string[] = [];
    for (const fix of fixes) {
      // each `trawl <command> [sub]` starts a segment whose flags belong to that command; before any, to settings
      for (const [n, segment] of fix.split(/\btrawl (?=[a-z])/).entries()) {
        const [top, sub] = segment.split(/[\s.,;)]/);
        const name = n === 0 ? undefined : commands.has(`${top} ${sub}`) ? `${top} ${sub}` : top!;
        if (name && !commands.has(name)) problems.push(`no command trawl ${name} (in "${fix}")`);
        for (const [flag] of segment.matchAll(/--[a-z][a-z0-9-]*/g)) {
          const known = SETTING_FLAG_NAMES.has(flag) || (name !== undefined && commands.get(name)?.has(flag));
          if (!known) problems.push(`${name ? `trawl ${name} ` : ''}${flag} (in "${fix}")`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('trawl crawl takes --allow-private-network as the variable does, and without either refuses loopback', async () => {
    // the flag alone, before another flag (`--allow-private-network --data-dir D` once read "--data-dir" as its value)
    const crawl = async (extra: string[], env: Record<string, string> = {}) => {
      const { dir, cleanup } = tempDir();
      cleanups.push(cleanup);
      const args = [
        'crawl',
        `${site.url}/`,
        ...extra,
        '--data-dir',
        dir,
        '--depth',
        '0',
        '--limit',
        '1',
        '--delay',
        '0',
        '--json',
      ];
      const run = await trawl(args, { TRAWL_LOG_LEVEL: 'silent', ...env });
      return {
        run,
        summary: JSON.parse(run.stdout || '{}') as { done?: number; failedByTag?: Record<string, number> },
      };
    };
    const [bare, word, equals, variable, neither, negated] = await Promise.all([
      crawl(['--allow-private-network']),
      crawl(['--allow-private-network', 'true']),
      crawl(['--allow-private-network=yes']),
      crawl([], { TRAWL_ALLOW_PRIVATE_NETWORK: 'true' }),
      crawl([]),
      // the flag wins over the variable, in either direction
      crawl(['--no-allow-private-network'], { TRAWL_ALLOW_PRIVATE_NETWORK: 'true' }),
    ]);
    for (const allowed of [bare, word, equals, variable]) expect(allowed.summary.done, allowed.run.stderr).toBe(1);
    for (const refused of [neither, negated]) {
      expect(refused.summary.done ?? 0, refused.run.stderr).toBe(0);
      expect(refused.run.stdout + refused.run.stderr).toMatch(/CRAWL_PRIVATE_ADDRESS/);
    }
  });

  it('a boolean flag given a word that is not true or false stops the command (exit 2), saying how to write it', async () => {
    const run = await trawl(['crawl', `${site.url}/`, '--robots=maybe']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'Invalid flag --robots=maybe: write --robots alone, --no-robots, or --robots=true|false',
    );
  });

  it('a bad flag value stops the command at once (exit 2), naming the flag', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const run = await trawl(['crawl', `${site.url}/`, '--data-dir', dir, '--fetch-max-bytes', '12']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Invalid flag --fetch-max-bytes="12"/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('trawl serve on a taken port ends at once with a hint of --port, with --workers too (no worker forked again and again)', async () => {
    const taken = net.createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = String((taken.address() as AddressInfo).port);
    try {
      for (const extra of [[], ['--workers', '2']]) {
        const { dir, cleanup } = tempDir();
        cleanups.push(cleanup);
        const run = await trawl(['serve', '--port', port, '--data-dir', dir, ...extra], { HOME: dir });
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toContain(`trawl: port ${port} on 127.0.0.1 is taken by another program`);
        expect(run.stderr).toContain('--port N (TRAWL_PORT), or --port 0 for any free port');
        expect(run.stderr.match(/is taken/g)).toHaveLength(1);
      }
    } finally {
      taken.close();
    }
  });

  it.skipIf(!fs.existsSync('/usr/bin/script'))(
    'trawl serve logs short readable lines on a terminal and JSON lines when stderr is not one',
    async () => {
      const { dir, cleanup } = tempDir();
      cleanups.push(cleanup);
      const serve = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve --port 0 --data-dir ${JSON.stringify(dir)}`;
      // util-linux `script` gives the command a terminal; its output is what the terminal showed
      const onTerminal = await untilListening(spawn('script', ['-qec', serve, '/dev/null'], { env: { PATH: process.env.PATH ?? '', HOME: dir } }), 'stdout'); // prettier-ignore
      const notice = onTerminal.split(/\r?\n/).find((l) => l.includes('No API key existed'));
      expect(notice).toMatch(/^\d\d:\d\d:\d\d (\u001b\[\d+m)?WARN/); // eslint-disable-line no-control-regex
      expect(onTerminal).not.toContain('{"level"');
      const piped = await untilListening(spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dir], { env: { PATH: process.env.PATH ?? '', HOME: dir } }), 'stderr'); // prettier-ignore
      const listening = piped.split('\n').find((l) => l.includes('listening on'));
      expect(JSON.parse(listening!)).toMatchObject({ level: 30, msg: expect.stringMatching(/^listening on http/) });
    },
  );
});

/** What a `trawl serve` child wrote on `stream` until it logged that it listens; then it is stopped. */
function untilListening(child: ChildProcess, stream: 'stdout' | 'stderr'): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream]!.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('listening on')) child.kill('SIGTERM');
    });
    child.on('close', () =>
      text.includes('listening on') ? resolve(text) : reject(new Error(`no listening line: ${text}`)),
    );
  });
}
