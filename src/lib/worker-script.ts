/**
 * Where a worker thread's script is: beside the module that starts it once compiled (dist/<dir>/ from
 * tsc, or dist/bin/ from the CLI bundle, whose entry points include each worker); from the TypeScript
 * sources (tests), the compiled one in dist/ (the test command builds first).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The file of worker `name` (`<name>.js`) for the module at `from` (its `import.meta.url`), compiled path `dir`. */
export function workerScript(name: string, from: string, dir: string): string {
  const here = new URL(`./${name}.js`, from);
  if (fs.existsSync(here)) return fileURLToPath(here);
  const srcRoot = fileURLToPath(new URL('..', import.meta.url)); // src/ (or dist/ when compiled)
  const built = `${srcRoot.replace(/[/\\]src[/\\]?$/, '/dist/')}${dir}/${name}.js`;
  if (fs.existsSync(built)) return built;
  throw new Error(`worker script ${name}.js not found beside ${fileURLToPath(from)}: run npm run build`);
}
