// Builds the web console (console/, Preact) into dist/console/: assets/app-<hash>.js and
// assets/app-<hash>.css (minified, no source maps, content-hashed so they can be cached for good) and
// the index.html that links them, written here so that it holds no inline script or style (the console's
// CSP allows neither). Prints the script's gzip size and fails above the budget of the first page.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist', 'console');
const ENTRY = 'console/src/main.tsx';
/** The budget: script of the first page, gzip. */
const BUDGET_BYTES = 150 * 1024;

fs.rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { app: ENTRY },
  outdir: path.join(OUT, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
});

const [jsFile, js] = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint === ENTRY) ?? [];
if (!jsFile || !js.cssBundle) throw new Error(`build-console: esbuild wrote no script and stylesheet for ${ENTRY}`);
const url = (file) => `/console/assets/${path.basename(file)}`;

const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Trawl console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${url(js.cssBundle)}" />
    <script type="module" src="${url(jsFile)}"></script>
  </head>
  <body>
    <div id="app"></div>
    <noscript>The Trawl console needs JavaScript.</noscript>
  </body>
</html>
`;
fs.writeFileSync(path.join(OUT, 'index.html'), html);

const sizeOf = (file) => {
  const bytes = fs.readFileSync(path.join(ROOT, file));
  return { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
};
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const script = sizeOf(jsFile);
const style = sizeOf(js.cssBundle);
console.log(
  `build-console: ${path.basename(jsFile)} ${kb(script.raw)} (${kb(script.gzip)} gzip, budget ${kb(BUDGET_BYTES)}), ` +
    `${path.basename(js.cssBundle)} ${kb(style.raw)} (${kb(style.gzip)} gzip)`,
);
if (script.gzip > BUDGET_BYTES) {
  console.error(
    `build-console: the first page's script is ${kb(script.gzip)} gzip, over the ${kb(BUDGET_BYTES)} budget`,
  );
  process.exit(1);
}
