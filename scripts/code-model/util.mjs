import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'lib', 'seeded-random.js');
const { seededRandom } = await import(dist);

// Small helpers of the code model's scripts: options and a seeded random generator (the same numbers on
// every machine, so mining and training are reproducible).

/** The value after `name` in `args`, else `fallback`. */
export const opt = (args, name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
/** Every value given after `name` (repeatable option), else `fallback`. */
export const opts = (args, name, fallback) => {
  const out = args.flatMap((a, i) => (a === name && args[i + 1] !== undefined ? [args[i + 1]] : []));
  return out.length > 0 ? out : fallback;
};
/** Whether `name` is among `args`. */
export const flag = (args, name) => args.includes(name);

/** A seeded generator of floats in [0, 1) (src/lib/seeded-random.ts, from dist/: one definition). */
export const rng = seededRandom;

/** Shuffles `list` in place, in the order `seed` gives. */
export function seededShuffle(list, seed) {
  const random = rng(seed);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}
