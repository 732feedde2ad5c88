// The package as a user gets it, tested from the packed tarball, not from the checkout (CI runs this after
// the test suite; `npm run test:package` by hand):
//
//   1. `npm pack` (its `prepare` builds dist/): the tarball holds the built CLI and no sources, tests or
//      source maps;
//   2. `npm install ./trawl-*.tgz` into an empty directory: runtime dependencies only (native modules
//      build from source where no prebuilt binary is found, about 80 s each on 2 cores);
//   3. there, `npx trawl --version`, `npx trawl mcp` (the SDK's client: initialize, tools/list, a loopback
//      page and PDF read, a search), `npx trawl serve` (GET /health) and `npx trawl doctor`; the code
//      model travels (its files, the weights with the sha256 of models/code-retriever.bin.json) and a
//      code query answers from the install (`npx trawl index` of a small folder, then get_code_context);
//   4. the client configs of docs/install.md against this install (test/package/client-configs.test.ts);
//   5. the MCP bundle built from this install (scripts/bundle-mcpb.mjs), unpacked and run; at most 30 MB
//      besides the code model's weights (int8 rows barely compress: the bundle carries them at their size).
//
// npx runs with --no, so that it never fetches a package named trawl from the registry. The sizes and
// times are printed; the last line counts the checks.
//
// With `--node 22` (or 24), steps 2-4 run on that Node line instead of the machine's: Node from the npm
// registry (scripts/lib/node-line.mjs) first on PATH, so npm builds the native modules against its headers
// and every `npx trawl` runs on it; the MCP bundle (step 5) is left to the machine's line. CI packs once
// (`--save-tarball DIR`: the tarball is copied there under its own name) and runs the other lines on that
// tarball side by side.
//
// Usage: node scripts/package-test.mjs [--tarball FILE] [--save-tarball DIR] [--node 22|24] [--keep]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { MODEL_FILES, installTarball, packTarball, treeSize } from './bundle-mcpb.mjs';
import { checkCodeContext, checkMcp, checkServe, childEnv, startFixtureSite } from './lib/smoke.mjs';
import { lineEnv, nodeLine } from './lib/node-line.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
/** The bundle's budget for everything but the code model's weights, which are added to it. */
const MAX_BUNDLE_BYTES = 30e6;
/** Development tools that must not be installed with the package. */
const DEV_ONLY = ['typescript', 'esbuild', 'vitest', 'eslint', 'prettier', '@anthropic-ai/mcpb', 'exa-js'];

/** A small folder of code for the code query: the answer shares few words with the question. */
const CODE_FIXTURE = {
  python: [
    'import os',
    '',
    '',
    'def is_symbolic_link(path):',
    '    """Whether the file at path is a symbolic link."""',
    '    return os.path.islink(path)',
    '',
  ].join('\n'),
  typescript: [
    '/** Whether a key still has the credits a request costs. */',
    'export function maySpend(credits: number, cost: number): boolean {',
    '  return credits >= cost;',
    '}',
    '',
  ].join('\n'),
};

const { values } = parseArgs({
  options: {
    tarball: { type: 'string' },
    'save-tarball': { type: 'string' },
    node: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
/** Another Node line than the machine's: every child (npm, npx, trawl) runs on it. */
const line = values.node ? nodeLine(values.node) : null;
if (line) Object.assign(process.env, lineEnv(line));
const on = line ? ` on Node ${line.version}` : '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-package-'));
const app = path.join(work, 'app');
const dataDir = path.join(work, 'data');
const started = Date.now();
const results = [];
const facts = [];

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs one named check; a failure is recorded and printed, and the later checks still run. */
async function check(name, fn) {
  const t0 = Date.now();
  try {
    const note = await fn();
    results.push({ name, ok: true });
    console.log(`ok    ${name} (${seconds(Date.now() - t0)})${note ? `: ${note}` : ''}`);
  } catch (err) {
    results.push({ name, ok: false });
    console.log(`FAIL  ${name} (${seconds(Date.now() - t0)}): ${err.message}`);
  }
}

/** How far the README's and docs/install.md's tarball figures may be from the tarball made here. */
const DOCUMENTED_SIZE_TOLERANCE = 0.15;

/**
 * The tarball's name, size and file count as README.md (`trawl-X.tgz, N MB (N files)`) and docs/install.md
 * (its first table row) state them: the version exact, the size and count within the tolerance.
 */
function checkDocumentedSize(name, bytes, files) {
  const documents = {
    'README.md': /(trawl-[\w.-]+\.tgz), ([\d.]+) MB \(([\d,]+) files\)/,
    'docs/install.md': /`(trawl-[\w.-]+\.tgz)`:[^|]*\| ([\d.]+) MB, ([\d,]+) files/,
  };
  for (const [file, pattern] of Object.entries(documents)) {
    const found = fs.readFileSync(path.join(ROOT, file), 'utf8').match(pattern);
    assert(found, `${file} states no tarball size`);
    const [, docName, docMb, docFiles] = found;
    const near = (stated, actual) => Math.abs(stated - actual) <= DOCUMENTED_SIZE_TOLERANCE * actual;
    assert(docName === name, `${file} names ${docName}; npm pack made ${name}`);
    assert(near(Number(docMb) * 1e6, bytes), `${file} says ${docMb} MB; the tarball is ${mb(bytes)}`);
    assert(near(Number(docFiles.replace(/,/g, '')), files), `${file} says ${docFiles} files; the tarball holds ${files}`); // prettier-ignore
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** `npx --no -- trawl ...args` in the install directory. */
function trawl(args, env) {
  const shell = process.platform === 'win32'; // npx.cmd runs only through a shell
  return spawnSync(NPX, ['--no', '--', 'trawl', ...args], { cwd: app, env, encoding: 'utf8', timeout: 120_000, shell }); // prettier-ignore
}

const env = childEnv({ TRAWL_DATA_DIR: dataDir, TRAWL_LOG_LEVEL: 'warn', TRAWL_ALLOW_PRIVATE_NETWORK: 'true' });
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
let tarball = values.tarball ? path.resolve(values.tarball) : null;
let installed = false;

try {
  await check('npm pack: the built CLI, no sources, tests or source maps', () => {
    const t0 = Date.now();
    tarball ??= packTarball(work);
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const unpacked = path.join(work, 'unpacked-tarball');
    fs.mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    const size = treeSize(unpacked);
    facts.push(`tarball ${path.basename(tarball)}: ${mb(fs.statSync(tarball).size)}, ${listing.length} files, ${mb(size.bytes)} unpacked`); // prettier-ignore
    for (const needed of [
      'package/dist/bin/cli.js',
      'package/package.json',
      'package/manifest.json',
      'package/README.md',
      ...MODEL_FILES.map((f) => `package/${f}`),
    ]) {
      assert(listing.includes(needed), `${needed} missing from the tarball`);
    }
    const unwanted = listing.filter((f) =>
      /^package\/(src|test|scripts|bench|\.ci)\/|\.map$|tsconfig|meta\.json$/.test(f),
    );
    assert(unwanted.length === 0, `the tarball holds ${unwanted.slice(0, 5).join(', ')}`);
    checkDocumentedSize(path.basename(tarball), fs.statSync(tarball).size, listing.length);
    const saveIn = values['save-tarball'];
    if (saveIn) fs.copyFileSync(tarball, path.join(path.resolve(saveIn), path.basename(tarball)));
    return `${listing.length} files in ${seconds(Date.now() - t0)}`;
  });

  await check(`npm install ./trawl-*.tgz into an empty directory${on}: runtime dependencies only`, () => {
    assert(tarball, 'no tarball');
    const t0 = Date.now();
    fs.mkdirSync(app);
    installTarball(tarball, app, { asUser: true }); // npm install --no-audit --no-fund --prefer-offline ./trawl-*.tgz
    installed = true;
    const took = Date.now() - t0;
    const nm = treeSize(path.join(app, 'node_modules'));
    facts.push(`installed: node_modules ${mb(nm.bytes)} in ${nm.files} files (trawl itself ${mb(treeSize(path.join(app, 'node_modules', 'trawl')).bytes)}); npm install took ${seconds(took)}`); // prettier-ignore
    const present = DEV_ONLY.filter((name) => fs.existsSync(path.join(app, 'node_modules', name)));
    assert(present.length === 0, `development dependencies installed: ${present.join(', ')}`);
    // npm did not run the package's prepare (a build) on install: the CLI is the tarball's, byte for byte
    const cli = (root) => fs.readFileSync(path.join(root, 'dist', 'bin', 'cli.js'));
    const fromTarball = path.join(work, 'unpacked-tarball', 'package');
    if (fs.existsSync(fromTarball)) assert(cli(fromTarball).equals(cli(path.join(app, 'node_modules', 'trawl'))), 'dist/bin/cli.js differs from the tarball\'s'); // prettier-ignore
    return `${seconds(took)}`;
  });

  if (installed) {
    await check(`npx trawl --version${on}`, () => {
      const r = trawl(['--version'], env);
      assert(r.status === 0 && r.stdout.trim() === pkg.version, `exit ${r.status}, "${r.stdout.trim()}" ${r.stderr}`);
      // the Node that npx starts trawl with is the line under test
      const node = spawnSync('node', ['--version'], { cwd: app, env, encoding: 'utf8' }).stdout.trim();
      assert(node === (line?.version ?? process.version), `npx runs Node ${node}`);
      return `${r.stdout.trim()} on Node ${node}`;
    });

    await check('npx trawl mcp: initialize, tools/list, get_contents of a page and a PDF, search', async () => {
      const site = await startFixtureSite();
      try {
        const { tools, handshakeMs } = await checkMcp({
          command: NPX,
          args: ['--no', '--', 'trawl', 'mcp'],
          cwd: app,
          env,
          site,
        });
        return `initialize in ${handshakeMs.toFixed(0)} ms through npx; tools ${tools.join(', ')}`;
      } finally {
        await site.close();
      }
    });

    await check('npx trawl serve: GET /health and the console', async () => {
      const { url, body } = await checkServe({
        command: NPX,
        args: ['--no', '--', 'trawl', 'serve', '--port', '0'],
        cwd: app,
        env: { ...env, TRAWL_LOG_LEVEL: 'info' },
      });
      return `${url}/health ${body}`;
    });

    await check('npx trawl doctor: exit 0 with nothing configured, naming the data directory', () => {
      const r = trawl(['doctor'], env);
      assert(r.status === 0, `exit ${r.status}\n${r.stdout}\n${r.stderr}`);
      assert(r.stdout.includes(dataDir), `the report does not name ${dataDir}:\n${r.stdout}`);
      // the weights travel: the installed package finds its code model and reads it as one
      assert(/^Code model\s+ok\s+trawl-code-[0-9a-f]{12} at /m.test(r.stdout), `no code model:\n${r.stdout}`);
      return `${r.stdout.trim().split('\n').length} lines`;
    });

    await check("the code model travels: its files, the weights of its summary's sha256", () => {
      const installed = path.join(app, 'node_modules', 'trawl');
      for (const file of MODEL_FILES) assert(fs.existsSync(path.join(installed, file)), `${file} is not installed`);
      const { sha256, version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'models', 'code-retriever.bin.json'), 'utf8')); // prettier-ignore
      const weights = fs.readFileSync(path.join(installed, 'models', 'code-retriever.bin'));
      const got = createHash('sha256').update(weights).digest('hex');
      assert(got === sha256, `the installed weights' sha256 is ${got}; models/code-retriever.bin.json says ${sha256}`);
      return `${version}, ${mb(weights.length)}`;
    });

    await check('a code query from the install: npx trawl index of a small folder, then get_code_context', async () => {
      const code = path.join(work, 'code-fixture');
      fs.mkdirSync(code, { recursive: true });
      fs.writeFileSync(path.join(code, 'links.py'), CODE_FIXTURE.python);
      fs.writeFileSync(path.join(code, 'spend.ts'), CODE_FIXTURE.typescript);
      const r = trawl(['index', code, '--name', 'fixture'], env);
      assert(r.status === 0, `trawl index: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
      const first = await checkCodeContext({
        command: NPX,
        args: ['--no', '--', 'trawl', 'mcp'],
        cwd: app,
        env,
        query: 'python check if a file is a symbolic link',
        expected: 'is_symbolic_link',
      });
      return `${r.stdout.trim()}; ${first}`;
    });

    await check('docs/install.md: every client config runs this install', () => {
      const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
      const r = spawnSync(process.execPath, [vitest, 'run', 'test/package/client-configs.test.ts'], {
        cwd: ROOT,
        env: { ...process.env, TRAWL_PACKAGE_DIR: app, NO_COLOR: '1', FORCE_COLOR: '0' },
        encoding: 'utf8',
      });
      assert(r.status === 0, `vitest exit ${r.status}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
      return /Tests\s+(.*)/.exec(r.stdout)?.[1]?.trim();
    });

    if (!line)
      await check('npm run bundle from this install: at most 30 MB besides the weights, unpacked and run', () => {
        const out = path.join(work, 'trawl.mcpb');
        const r = spawnSync(process.execPath, ['scripts/bundle-mcpb.mjs', '--install-dir', app, '--out', out], {
          cwd: ROOT,
          encoding: 'utf8',
        });
        assert(r.status === 0, `exit ${r.status}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
        const bytes = fs.statSync(out).size;
        const last = r.stdout.trim().split('\n').pop();
        facts.push(last);
        const weights = fs.statSync(path.join(ROOT, 'models', 'code-retriever.bin')).size;
        const max = MAX_BUNDLE_BYTES + weights;
        assert(
          bytes <= max,
          `${mb(bytes)} is over ${mb(max)} (${mb(MAX_BUNDLE_BYTES)} and the weights' ${mb(weights)})`,
        );
        return `${mb(bytes)} (${mb(bytes - weights)} besides the weights)`;
      });
  }
} finally {
  if (values.keep) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}

for (const fact of facts) console.log(`  ${fact}`);
const failed = results.filter((r) => !r.ok).length;
console.log(`package test: ${seconds(Date.now() - started)} in all`);
console.log(`${results.length - failed} passed, ${failed} failed`);
// every check ran: the bundle's is the machine line's only
process.exitCode = failed > 0 || results.length < (line ? 9 : 10) ? 1 : 0;
