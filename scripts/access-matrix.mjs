// Draws the authorization matrix (src/http/access-matrix.ts, src/ops/access-matrix.ts: every REST route,
// MCP tool and MCP method × every kind of caller) into docs/accounts.md between the `access-matrix:start`
// and `access-matrix:end` markers. `--check` fails when the doc is out of date (test/unit/access-matrix.test.ts
// checks it too). Reads the build: npm run build && node scripts/access-matrix.mjs [--check]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(ROOT, 'docs/accounts.md');
const load = (file) => import(pathToFileURL(path.join(ROOT, 'dist', file)).href);
const { accessMatrixSections } = await load('http/access-matrix.js');
const { renderMatrix, MATRIX_START, MATRIX_END } = await load('ops/access-matrix.js');

const doc = fs.readFileSync(DOC, 'utf8');
const start = doc.indexOf(MATRIX_START);
const end = doc.indexOf(MATRIX_END);
if (start < 0 || end < start) {
  console.error(`${path.relative(ROOT, DOC)}: the markers of the generated matrix are missing`);
  process.exit(1);
}
const block = `${MATRIX_START}\n\n${renderMatrix(accessMatrixSections())}\n\n${MATRIX_END}`;
// formatted as `npm run lint` formats it (Prettier aligns the tables), so that --check compares like with like
const options = { ...(await prettier.resolveConfig(DOC)), filepath: DOC };
const next = await prettier.format(doc.slice(0, start) + block + doc.slice(end + MATRIX_END.length), options);
if (process.argv.includes('--check')) {
  if (next !== doc) {
    console.error(`${path.relative(ROOT, DOC)} is out of date with the registry: run node scripts/access-matrix.mjs`);
    process.exit(1);
  }
} else if (next !== doc) {
  fs.writeFileSync(DOC, next);
  console.error(`wrote ${path.relative(ROOT, DOC)}`);
}
