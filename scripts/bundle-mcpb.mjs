// `npm run bundle`: builds the MCP bundle (.mcpb) for this machine's platform, from the packed package.
//
//   1. `npm pack` (its `prepare` builds dist/), unless --tarball names a packed file;
//   2. `npm install --omit=dev` of that tarball into an empty directory, unless --install-dir names one
//      that holds it already (scripts/package-test.mjs passes its own): native modules build here;
//   3. stages dist/bin (the CLI, bundled by esbuild), package.json, manifest.json, README.md, the code
//      model (MODEL_FILES: its weights, training summary and the licences of its data) and, in
//      node_modules, only the packages dist/bin loads at run time (the esbuild externals and what they
//      need), pruned of what the runtime does not read: docs, type declarations, source maps, test
//      folders, the C sources and build intermediates of native modules;
//   4. writes the staged manifest for this platform and Node major only (native modules are built for
//      both), validates it and packs it with the mcpb CLI (a dev dependency);
//   5. unpacks the .mcpb into a fresh directory and runs it as a client would, from the manifest's
//      mcp_config: initialize, tools/list (every tool of the manifest), and a read of a loopback HTML page
//      and PDF (native SQLite modules, page cache, pdfjs).
//
// Usage: node scripts/bundle-mcpb.mjs [--tarball FILE] [--install-dir DIR] [--out FILE] [--keep]
// The last line gives the file, its size and its number of files.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkMcp, childEnv, startFixtureSite } from './lib/smoke.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MCPB = path.join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The code model as it ships, at the same paths in the package and the bundle (beside dist/): its weights,
 * the trainer's summary (sha256, version) and the licences of the data it was trained on. package.json's
 * "files" lists the same three.
 */
export const MODEL_FILES = ['models/code-retriever.bin', 'models/code-retriever.bin.json', 'models/code-retriever.LICENSES.md']; // prettier-ignore

/** Dependencies that only build or download native modules at install time; nothing loads them at run time. */
const INSTALL_TIME_ONLY = new Set(['prebuild-install', 'node-gyp', 'node-addon-api', 'tar']);
/** Folders of a package that the runtime never reads (Trawl loads pdfjs-dist/legacy/build only). */
const PACKAGE_PRUNE = {
  'pdfjs-dist': ['build', 'web', 'types', 'image_decoders', 'legacy/web', 'legacy/image_decoders'],
};
const ROOT_DIRS_PRUNED = new Set(['test', 'tests', '__tests__', 'example', 'examples', 'docs', 'doc', '.github', 'benchmark', 'benchmarks']); // prettier-ignore
const FILE_PRUNED =
  /\.(map|d\.ts|d\.mts|d\.cts|tsbuildinfo|markdown|gyp|gypi)$|^(Makefile|\.npmignore|\.eslintrc.*|\.editorconfig)$/i;
const KEPT_DOCS = /^(licen[cs]e|notice|copying)/i;

function run(cmd, args, options = {}) {
  const shell = process.platform === 'win32' && cmd.endsWith('.cmd'); // Node runs .cmd files only through a shell
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', shell, ...options });
}

/** `npm pack` in the checkout (prepare builds dist/) into `dir`; the tarball's path. */
export function packTarball(dir) {
  const out = run(NPM, ['pack', '--json', '--pack-destination', dir], { cwd: ROOT });
  const [{ filename }] = JSON.parse(out.slice(out.search(/^\[\s*\{/m))); // after any output of the build
  return path.join(dir, filename);
}

/**
 * `npm install` of the tarball into the empty directory `dir` (as a user would: a dependency's own
 * devDependencies are never installed); `--omit=dev` too unless `asUser`.
 */
export function installTarball(tarball, dir, { asUser = false } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  const omit = asUser ? [] : ['--omit=dev'];
  run(NPM, ['install', ...omit, '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: dir });
}

/**
 * Declared dependencies that dist/bin loads at run time: esbuild leaves these (its externals) as import
 * statements, import() calls and require() calls. Import statements are looked for with comments left
 * out (the JSDoc examples of bundled libraries quote imports); calls are looked for in the whole text too,
 * so that a string holding "/*" cannot hide one.
 */
function runtimeRoots(binDir, declared) {
  const anyForm = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\b[\w$]*require\d*\s*\(\s*)["']([^"'\s]+)["']/g;
  const calls = /(?:\bimport\s*\(\s*|\b[\w$]*require\d*\s*\(\s*)["']([^"'\s]+)["']/g;
  const comments = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm;
  const roots = new Set();
  const add = (s) => {
    if (s.startsWith('.') || s.startsWith('/') || isBuiltin(s)) return;
    const name = s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0];
    if (declared.has(name)) roots.add(name);
  };
  for (const file of fs.readdirSync(binDir).filter((f) => f.endsWith('.js'))) {
    const code = fs.readFileSync(path.join(binDir, file), 'utf8');
    for (const [, s] of code.replace(comments, '').matchAll(anyForm)) add(s);
    for (const [, s] of code.matchAll(calls)) add(s);
  }
  return roots;
}

/** The directory of package `name` as Node resolves it from `fromDir`, not above `top`. */
function findPackage(fromDir, name, top) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === top || dir === path.dirname(dir)) return null;
  }
}

/** Every package directory that the roots need, following dependencies, optional and peer ones present. */
function dependencyClosure(pkgDir, roots, top) {
  const found = new Set();
  const visit = (fromDir, name, required) => {
    if (INSTALL_TIME_ONLY.has(name)) return;
    const dir = findPackage(fromDir, name, top);
    if (!dir) {
      if (required) throw new Error(`${name}, needed from ${fromDir}, is not installed`);
      return;
    }
    if (found.has(dir)) return;
    found.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dir, dep, true);
    for (const dep of Object.keys({ ...pkg.optionalDependencies, ...pkg.peerDependencies })) visit(dir, dep, false);
  };
  for (const name of roots) visit(pkgDir, name, true);
  return found;
}

/** Copies a package directory without its nested node_modules and without what the runtime never reads. */
function copyPruned(from, to, name) {
  const pruned = new Set((PACKAGE_PRUNE[name] ?? []).map((p) => path.join(from, p)));
  const native = fs.existsSync(path.join(from, 'binding.gyp'));
  const walk = (src, dest, depth) => {
    fs.mkdirSync(dest, { recursive: true });
    for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
      const s = path.join(src, entry.name);
      const rel = path.relative(from, s).split(path.sep).join('/');
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || pruned.has(s)) continue;
        if (depth === 0 && ROOT_DIRS_PRUNED.has(entry.name)) continue;
        // a native module needs its compiled addon only: not its C sources nor the build's intermediates
        if (native && depth === 0 && ['deps', 'src', 'node-addon-api'].includes(entry.name)) continue;
        if (native && rel.startsWith('build/') && rel !== 'build/Release') continue;
        walk(s, path.join(dest, entry.name), depth + 1);
      } else {
        if (native && rel.startsWith('build/') && !/^build\/Release\/(?!test)[^/]+\.node$/.test(rel)) continue;
        if (FILE_PRUNED.test(entry.name)) continue;
        if (/\.md$/i.test(entry.name) && !KEPT_DOCS.test(entry.name)) continue;
        fs.copyFileSync(s, path.join(dest, entry.name));
        fs.chmodSync(path.join(dest, entry.name), fs.statSync(s).mode);
      }
    }
  };
  walk(from, to, 0);
}

/** The Node major the native modules were built for (npm builds them with the `node` on PATH). */
function buildNodeVersion() {
  return run('node', ['-p', 'process.versions.node']).trim();
}

/** The manifest of the built bundle: this platform only, the Node major its native modules were built for. */
function stagedManifest(manifest, pkg, target) {
  const minimum = (pkg.engines?.node ?? '>=20').replace(/^>=\s*/, '');
  return {
    ...manifest,
    long_description: `${manifest.long_description} This bundle carries native modules built for ${target.platform}-${target.arch} and Node.js ${target.nodeMajor}.`, // prettier-ignore
    compatibility: {
      ...manifest.compatibility,
      platforms: [target.platform],
      runtimes: { node: `>=${minimum} <${target.nodeMajor + 1}` },
    },
  };
}

/** Stages the bundle's directory from an install of the tarball; returns the staged manifest. */
export function stageBundle(installDir, stageDir, target) {
  const top = path.resolve(installDir);
  const pkgDir = path.join(top, 'node_modules', 'trawl');
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'manifest.json'), 'utf8'));
  fs.rmSync(stageDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(stageDir, 'dist', 'bin'), { recursive: true });

  const binDir = path.join(pkgDir, 'dist', 'bin');
  for (const file of fs.readdirSync(binDir).filter((f) => f.endsWith('.js'))) {
    fs.copyFileSync(path.join(binDir, file), path.join(stageDir, 'dist', 'bin', file));
  }
  fs.chmodSync(path.join(stageDir, manifest.server.entry_point), 0o755);
  // the web console's built page and assets (served at /console by `trawl serve`, docs/console.md)
  const consoleDir = path.join(pkgDir, 'dist', 'console');
  if (!fs.existsSync(path.join(consoleDir, 'index.html')))
    throw new Error('dist/console is missing from the installed package');
  fs.cpSync(consoleDir, path.join(stageDir, 'dist', 'console'), { recursive: true });
  fs.copyFileSync(path.join(pkgDir, 'README.md'), path.join(stageDir, 'README.md'));
  for (const file of MODEL_FILES) {
    if (!fs.existsSync(path.join(pkgDir, file))) throw new Error(`${file} is missing from the installed package`);
    fs.mkdirSync(path.dirname(path.join(stageDir, file)), { recursive: true });
    fs.copyFileSync(path.join(pkgDir, file), path.join(stageDir, file));
  }
  const staged = stagedManifest(manifest, pkg, target);
  fs.writeFileSync(path.join(stageDir, 'manifest.json'), `${JSON.stringify(staged, null, 2)}\n`);

  const roots = runtimeRoots(binDir, new Set(Object.keys(pkg.dependencies ?? {})));
  const packages = dependencyClosure(pkgDir, roots, top);
  // the bundle's package.json: ESM, its version, and the dependencies its node_modules carries
  const { scripts: _s, devDependencies: _d, files: _f, main: _m, types: _t, dependencies, ...rest } = pkg;
  const carried = Object.fromEntries([...roots].sort().map((name) => [name, dependencies[name]]));
  fs.writeFileSync(
    path.join(stageDir, 'package.json'),
    `${JSON.stringify({ ...rest, dependencies: carried }, null, 2)}\n`,
  );
  for (const dir of packages) {
    // node_modules/x and node_modules/trawl/node_modules/x both land in the bundle's node_modules/x
    const rel = path.relative(path.join(top, 'node_modules'), dir).replace(/^trawl[\\/]node_modules[\\/]/, '');
    const name = rel.split(/[\\/]node_modules[\\/]/).pop();
    copyPruned(dir, path.join(stageDir, 'node_modules', rel), name);
  }
  return { manifest: staged, roots: [...roots].sort(), packages: packages.size };
}

/** Files and bytes under a directory. */
export function treeSize(dir) {
  let files = 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      files++;
      bytes += fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
    }
  }
  return { files, bytes };
}

/**
 * Unpacks the bundle and runs it as a client would from its manifest's mcp_config (user_config values:
 * a fresh data directory, every tool, the other settings empty); expects every tool of the manifest.
 */
export async function verifyBundle(bundle, workDir) {
  const dir = path.join(workDir, 'unpacked');
  fs.rmSync(dir, { recursive: true, force: true });
  run(process.execPath, [MCPB, 'unpack', bundle, dir]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const userConfig = { data_dir: fs.mkdtempSync(path.join(workDir, 'data-')), tools: 'all', log_level: 'warn' };
  const fill = (s) =>
    s.replaceAll('${__dirname}', dir).replace(/\$\{user_config\.(\w+)\}/g, (_, k) => userConfig[k] ?? '');
  const { command, args, env } = manifest.server.mcp_config;
  const mcpEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)]));
  const site = await startFixtureSite();
  try {
    const result = await checkMcp({
      command: command === 'node' ? process.execPath : command,
      args: args.map(fill),
      cwd: dir,
      env: childEnv({ ...mcpEnv, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' }),
      site,
    });
    const expected = manifest.tools.map((t) => t.name);
    if (JSON.stringify(result.tools) !== JSON.stringify(expected)) {
      throw new Error(`tools/list gave ${result.tools.join(', ')}; the manifest lists ${expected.join(', ')}`);
    }
    return { dir, ...result };
  } finally {
    await site.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      tarball: { type: 'string' },
      'install-dir': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-mcpb-'));
  const started = Date.now();
  const step = (what) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${what}`);
  try {
    let installDir = values['install-dir'];
    if (!installDir) {
      const tarball = values.tarball ? path.resolve(values.tarball) : (step('npm pack'), packTarball(work));
      installDir = path.join(work, 'install');
      step(`npm install --omit=dev ${path.basename(tarball)} (native modules build from source where no prebuilt binary is found)`); // prettier-ignore
      installTarball(tarball, installDir);
    }
    const nodeVersion = buildNodeVersion();
    const target = { platform: process.platform, arch: process.arch, nodeMajor: Number(nodeVersion.split('.')[0]) };
    const stage = path.join(work, 'stage');
    const staged = stageBundle(installDir, stage, target);
    const size = treeSize(stage);
    step(`staged ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB: dist/bin and ${staged.packages} packages for ${staged.roots.join(', ')}`); // prettier-ignore

    const { version } = staged.manifest;
    const out = path.resolve(values.out ?? path.join(ROOT, `trawl-${version}-${target.platform}-${target.arch}.mcpb`));
    run(process.execPath, [MCPB, 'validate', path.join(stage, 'manifest.json')], { stdio: 'inherit' });
    run(process.execPath, [MCPB, 'pack', stage, out]);
    const bytes = fs.statSync(out).size;
    step(`packed ${out}: ${(bytes / 1e6).toFixed(1)} MB`);

    const checked = await verifyBundle(out, work);
    step(`unpacked and ran it (${staged.manifest.server.mcp_config.command} ${staged.manifest.server.entry_point} mcp): initialize in ${checked.handshakeMs.toFixed(0)} ms, ${checked.tools.length} tools, a page and a PDF read`); // prettier-ignore
    console.log(`bundle: ${path.relative(process.cwd(), out)} ${(bytes / 1e6).toFixed(1)} MB, ${size.files} files, for ${target.platform}-${target.arch}, Node ${target.nodeMajor}`); // prettier-ignore
  } finally {
    if (values.keep) console.log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
