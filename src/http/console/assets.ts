/**
 * The console's built files (`dist/console/`, made by scripts/build-console.mjs from `console/`): found
 * beside the package's `package.json` whether the door runs from the bundle (`dist/bin/`) or from the
 * sources (tests), read once and kept in memory (a few tens of KB), served with their type, a strict
 * Content-Security-Policy and the cache rule of their name (hashed assets for a year, the page never).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every console response's security headers: no inline script or style, no framing, no referrer. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** An asset's name: letters, digits, dots, dashes and underscores, with a known extension. No path. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export interface ConsoleFile {
  body: Buffer;
  type: string;
  cache: string;
}

export interface ConsoleAssets {
  /** Where the built console was looked for. */
  dir: string;
  /** The page, or undefined when the console was not built. */
  page(): ConsoleFile | undefined;
  /** An asset under `assets/`, or undefined. */
  asset(name: string): ConsoleFile | undefined;
}

/** The package's root: the nearest folder above this module with Trawl's package.json. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'trawl') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/** The built console under `dir` (default: the package's `dist/console`). */
export function consoleAssets(dir = path.join(packageRoot(), 'dist', 'console')): ConsoleAssets {
  const cache = new Map<string, ConsoleFile | undefined>();
  const read = (file: string, cacheRule: string): ConsoleFile | undefined => {
    if (cache.has(file)) return cache.get(file);
    let found: ConsoleFile | undefined;
    try {
      const body = fs.readFileSync(file);
      found = { body, type: TYPES[path.extname(file)] ?? 'application/octet-stream', cache: cacheRule };
    } catch {
      found = undefined;
    }
    // the page is looked for again until it is built; a found file never changes under a running server
    if (found) cache.set(file, found);
    return found;
  };
  return {
    dir,
    page: () => read(path.join(dir, 'index.html'), 'no-store'),
    asset(name) {
      if (!ASSET_NAME.test(name) || !TYPES[path.extname(name)]) return undefined;
      // content-hashed names (app-3f2a….js) never change: cache them; anything else for a minute
      const hashed = /-[A-Za-z0-9]{8,}\.[a-z]+$/.test(name);
      return read(
        path.join(dir, 'assets', name),
        hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=60',
      );
    },
  };
}
