// Before/after on one machine: runs benchmark scripts in a baseline checkout (built, e.g. a `git worktree`
// of an earlier commit) and in this one, alternating run by run so that load drifts hit both alike, and
// prints a table per script of each headline figure (the scripts' last lines, `name=value …`): the
// median of the runs before and after, their ratio, and the spread (min–max) of each side, which is the
// run-to-run noise to judge a difference against. Progress goes to stderr.
// Usage: npm run build && node bench/ab.mjs --baseline DIR [--runs 3] [--args "--copies 2"] startup.mjs …
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fmt, machineLine, mdTable, ROOT } from './lib.mjs';

const args = process.argv.slice(2);
const take = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const baseline = take('--baseline');
const runs = Number(take('--runs', '3'));
const extra = (take('--args', '') ?? '').split(' ').filter(Boolean);
const scripts = args;
if (!baseline || scripts.length === 0 || !(runs >= 1)) {
  console.error('usage: node bench/ab.mjs --baseline DIR [--runs 3] [--args "..."] SCRIPT.mjs [...]');
  process.exit(2);
}
const sides = { before: path.resolve(baseline), after: ROOT };
for (const [side, root] of Object.entries(sides)) {
  if (!fs.existsSync(path.join(root, 'dist/bin/cli.js'))) {
    console.error(`${side} (${root}) is not built: run npm run build there`);
    process.exit(2);
  }
}

let current = null;
process.once('SIGINT', () => {
  current?.kill('SIGINT'); // each script stops its own children and removes its temp dirs
  process.exit(130);
});

/** One run of a script in one checkout: its headline figures, parsed from its last line. */
function runOnce(root, script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bench', script), ...extra], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    current = child;
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('close', (code) => {
      current = null;
      if (code !== 0) return reject(new Error(`${script} in ${root} exited with ${code}`));
      const last = out.trimEnd().split('\n').at(-1) ?? '';
      const figures = Object.fromEntries(
        last
          .split(/\s+/)
          .map((pair) => pair.split('='))
          .filter(([key, value]) => key && value !== undefined && Number.isFinite(Number(value)))
          .map(([key, value]) => [key, Number(value)]),
      );
      resolve(figures);
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;

console.log(`# Before/after: ${runs} runs each, alternating\n`);
console.log(machineLine());
console.log(
  `\nbefore: ${sides.before}  \nafter: ${sides.after}${extra.length ? `  \nscript arguments: ${extra.join(' ')}` : ''}\n`,
);
for (const script of scripts) {
  const seen = { before: [], after: [] };
  for (let i = 0; i < runs; i++) {
    // alternate which side goes first, so neither always runs on a machine the other has just warmed
    const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) {
      process.stderr.write(`ab: ${script} ${side} run ${i + 1}/${runs}\n`);
      seen[side].push(await runOnce(sides[side], script));
    }
  }
  const keys = Object.keys(seen.after[0]).filter((key) => key in seen.before[0]);
  const rows = keys.map((key) => {
    const before = seen.before.map((f) => f[key]);
    const after = seen.after.map((f) => f[key]);
    const ratio = median(before) === 0 ? '—' : fmt(median(after) / median(before), 3);
    return [key, fmt(median(before), 2), fmt(median(after), 2), ratio, spread(before), spread(after)];
  });
  console.log(`## ${script}\n`);
  console.log(
    mdTable(['figure', 'before (median)', 'after (median)', 'after / before', 'before min–max', 'after min–max'], rows),
  );
  console.log('');
}
