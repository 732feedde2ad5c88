// The last step of `npm run build`: removes outputs of earlier builds that this build did not write, so
// that dist/ (and the packed package, the MCP bundle) holds this build only. esbuild names its chunks by
// content hash and never deletes old ones (dist/bin/meta.json lists what it wrote); tsc leaves the
// outputs of deleted sources. Prints what it removed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const BIN = path.join(DIST, 'bin');

const written = new Set(Object.keys(JSON.parse(fs.readFileSync(path.join(BIN, 'meta.json'), 'utf8')).outputs).map((p) => path.resolve(ROOT, p))); // prettier-ignore
written.add(path.join(BIN, 'meta.json'));

/** Whether a tsc output (x.js, x.js.map, x.d.ts, x.d.ts.map) still has its source src/x.ts. */
function hasSource(file) {
  const rel = path.relative(DIST, file).replace(/(\.d\.ts|\.js)(\.map)?$/, '');
  return fs.existsSync(path.join(ROOT, 'src', `${rel}.ts`));
}

let removed = 0;
for (const entry of fs.readdirSync(DIST, { withFileTypes: true, recursive: true })) {
  if (!entry.isFile()) continue;
  const file = path.join(entry.parentPath ?? entry.path, entry.name);
  // dist/console is scripts/build-console.mjs's, which writes it whole on every build
  if (file.startsWith(path.join(DIST, 'console') + path.sep)) continue;
  const stale = file.startsWith(BIN + path.sep) ? !written.has(file) : !hasSource(file);
  if (stale) {
    fs.rmSync(file);
    removed++;
  }
}
if (removed > 0) console.log(`prune-dist: removed ${removed} files of earlier builds`);
