// Bundles the CLI into dist/bin/ (ESM, code-split per command) so that `trawl mcp` loads a few files
// instead of hundreds: module resolution and loading dominate its cold start. Native modules (and the sqlite-vec extension), and the
// keyv stack, pdfjs, playwright-core and OpenTelemetry (traces, when on), all loaded lazily, stay external
// and load from node_modules.
// Every dynamic import() is a split point: what `trawl mcp` loads before its handshake is cli.js, the
// config chunk and the mcp.command chunk with their static imports; the app and the door load later
// (src/mcp/stdio.ts). dist/bin/meta.json (esbuild's metafile) lets a test hold that so.
import fs from 'node:fs';
import { build } from 'esbuild';

const result = await build({
  // each worker thread's script is an entry of its own (src/lib/worker-script.ts finds it beside its chunk)
  entryPoints: {
    cli: 'src/cli/main.ts',
    'merge-worker': 'src/store/search-index/merge-worker.ts',
    'document-writer-worker': 'src/compose/document-writer-worker.ts',
    'analysis-worker': 'src/core/search/analysis-worker.ts',
    'pdf-worker': 'src/core/contents/formats/pdf-worker.ts',
  },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  external: [
    'better-sqlite3',
    'sqlite-vec',
    'keyv',
    'ajv',
    'ajv-formats',
    'pdfjs-dist',
    'playwright-core',
    '@opentelemetry/*',
  ],
  // Bundled CommonJS dependencies (pino, commander) call require(); give them one.
  banner: {
    js: "import { createRequire as __trawlCreateRequire } from 'node:module'; const require = __trawlCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});
fs.writeFileSync('dist/bin/meta.json', JSON.stringify(result.metafile));
