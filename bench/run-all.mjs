// Runs every benchmark one after the other (never in parallel: they would compete for the 2 cores) and
// writes their combined output to stdout; progress goes to stderr. The last line joins their headlines.
// Usage: npm run build && npm run bench
import { spawn } from 'node:child_process';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRIPTS = [
  'startup.mjs',
  'tool-footprint.mjs',
  'rest-overhead.mjs',
  'contents.mjs',
  'crawl.mjs',
  'extraction.mjs',
  'metadata.mjs',
  'retrieval.mjs',
  'search.mjs',
  'monitors.mjs',
  'accounts.mjs',
  'agent.mjs',
  'schema-limits.mjs',
  'pdf-bomb.mjs',
  'fairness.mjs',
  'hostile-bodies.mjs',
  'src-questions.mjs',
];
const TIMEOUT_MS = 10 * 60 * 1000; // per script; each normally takes 1–2 minutes

let current = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    if (current) current.kill(signal); // the script cleans up its own children and temp dirs
    process.exit(130);
  });
}

function run(script) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, script)], { stdio: ['ignore', 'pipe', 'inherit'] });
    current = child;
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => {
      process.stderr.write(`run-all: ${script} timed out after ${TIMEOUT_MS / 1000} s\n`);
      child.kill('SIGTERM');
    }, TIMEOUT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      current = null;
      resolve({ script, code: code ?? 1, signal, out: out.trimEnd() });
    });
  });
}

const results = [];
for (const script of SCRIPTS) {
  process.stderr.write(`run-all: ${script}\n`);
  const r = await run(script);
  results.push(r);
  console.log(r.out);
  if (r.code !== 0) console.log(`\n**${script} failed** (exit ${r.code}${r.signal ? `, ${r.signal}` : ''})`);
  console.log('');
}
const headline = results
  .filter((r) => r.code === 0 && r.out)
  .map((r) => r.out.split('\n').at(-1))
  .join(' ');
console.log(headline);
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
