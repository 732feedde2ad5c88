// Writes the settings table of docs/configuration.md and the CLI's flag list (src/config/flags.ts) from
// SETTINGS in src/config/settings.ts (the generator: src/config/settings-doc.ts). Run it after adding or
// changing a setting: `node scripts/settings-table.mjs`; `--check` only says whether both are current
// (exit 1 if not), as test/unit/docs.test.ts does.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { loadTs } from './lib/load-ts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(root, 'docs/configuration.md');
const FLAGS = path.join(root, 'src/config/flags.ts');

/** The generator and SETTINGS, bundled from the TypeScript sources (packages stay external). */
const loadGenerator = () =>
  loadTs('settings-doc', "export * from './src/config/settings-doc.ts'; export { SETTINGS } from './src/config/config.ts';"); // prettier-ignore

async function format(text, filepath) {
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(text, { ...options, filepath });
}

const gen = await loadGenerator();
const stale = gen.unknownKeys(gen.SETTINGS);
if (stale.length > 0)
  throw new Error(`src/config/settings-doc.ts names settings that do not exist: ${stale.join(', ')}`);
const doc = await format(gen.withTable(fs.readFileSync(DOC, 'utf8'), gen.settingsMarkdownTable(gen.SETTINGS)), DOC);
const flags = await format(gen.flagsModuleSource(gen.SETTINGS), FLAGS);
const files = [
  [DOC, doc],
  [FLAGS, flags],
];
const changed = files.filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text);
if (process.argv.includes('--check')) {
  for (const [file] of changed)
    console.log(`stale: ${path.relative(root, file)} (run node scripts/settings-table.mjs)`);
  process.exitCode = changed.length > 0 ? 1 : 0;
} else {
  for (const [file, text] of changed) fs.writeFileSync(file, text);
  console.log(changed.length > 0 ? `wrote ${changed.map(([f]) => path.relative(root, f)).join(', ')}` : 'up to date');
}
