/** The package version (package.json is inlined by tsc's JSON import and by the bundler alike). */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
