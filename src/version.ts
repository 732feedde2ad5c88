/** The package version, read from package.json (one level above both src/ and dist/). */
import { createRequire } from 'node:module';

export const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
