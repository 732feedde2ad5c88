// Loads TypeScript sources of the project from a plain Node script: bundled once by esbuild into
// node_modules/.cache/trawl (packages stay external), then imported.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The module whose source is `contents` (TypeScript, paths relative to the project's root), bundled
 * as `<name>.mjs` and imported fresh.
 */
export async function loadTs(name, contents) {
  const cache = path.join(ROOT, 'node_modules/.cache/trawl');
  fs.mkdirSync(cache, { recursive: true });
  const outfile = path.join(cache, `${name}.mjs`);
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
}
