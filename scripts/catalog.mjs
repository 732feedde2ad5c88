// Writes src/mcp/catalog.generated.ts, what `tools/list` shows of each MCP tool, from the registry
// (src/ops/registry.ts: each operation's toolText and annotations, the tool groups, agent_run) through
// src/mcp/catalog-build.ts. Run it after changing a tool: `node scripts/catalog.mjs`; `--check` only says
// whether the file is current (exit 1 if not), as `npm run lint:layers` and test/unit/mcp/catalog-generated.test.ts do.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { loadTs } from './lib/load-ts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FILE = path.join(root, 'src/mcp/catalog.generated.ts');

const build = await loadTs('catalog-build', "export * from './src/mcp/catalog-build.ts';");
const source = build.catalogModuleSource(build.buildToolSpecs());
const text = await prettier.format(source, { ...((await prettier.resolveConfig(FILE)) ?? {}), filepath: FILE });
const current = fs.existsSync(FILE) && fs.readFileSync(FILE, 'utf8') === text;

if (process.argv.includes('--check')) {
  if (!current) console.log(`stale: ${path.relative(root, FILE)} (run node scripts/catalog.mjs)`);
  process.exitCode = current ? 0 : 1;
} else if (!current) {
  fs.writeFileSync(FILE, text);
  console.log(`wrote ${path.relative(root, FILE)}`);
}
