#!/usr/bin/env node
/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`) against Trawl's HTTP door.
 *
 *   node scripts/conformance.mjs [--report FILE] [--cache DIR]
 *
 * The suite needs Node 22: it is installed from the npm registry with `npm install --prefix` into a cache
 * directory outside the repository (TRAWL_CONFORMANCE_CACHE, default $TMPDIR/trawl-conformance; kept
 * between runs), and Node 22 as the package test gets it (scripts/lib/node-line.mjs). It starts the built
 * CLI (`trawl serve`, run `npm run build` first) on a temporary data directory in keyless loopback mode
 * with every tool, runs the suite's server scenarios against http://127.0.0.1:PORT/mcp, and writes a
 * Markdown report (each scenario: pass, fail, or not applicable and why). It exits 1 when a scenario
 * that applies to Trawl has a failed check, so CI fails on a regression.
 *
 * The suite's server scenarios speak 2025-11-25 to a fixture server's own tools, resources and prompts
 * (`test_*` tools, `test://` resources, prompts): those do not apply to Trawl, which serves its own
 * tools and no prompts; they are run and listed, never counted. The 2026-07-28 side and the OAuth
 * authorization server are proven by Trawl's own tests with the SDK's v2 client (docs/mcp.md).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { nodeLine } from './lib/node-line.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist/bin/cli.js');
const SUITE = '@modelcontextprotocol/conformance@0.1.16';

/** The scenarios that apply to Trawl: their failures fail the run. */
const APPLICABLE = {
  'server-initialize': 'the 2025-11-25 handshake',
  'logging-set-level': 'logging/setLevel (Trawl declares logging)',
  ping: 'ping',
  'tools-list': "tools/list of Trawl's own tools",
  'resources-list': "resources/list of Trawl's own resources",
  'dns-rebinding-protection': 'Host and Origin checked on a loopback listener',
  'server-sse-multiple-streams': 'concurrent POST streams of the stateless door',
  'server-sse-polling': 'a call answered on its POST stream (the stateless door keeps no stream to resume)',
};

/** Why the others do not apply (a scenario missing here is reported as new, and fails the run). */
const NOT_APPLICABLE = {
  'completion-complete': 'completes a fixture prompt argument; Trawl declares no completions (no prompts)',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'calls the fixture tool test_sampling',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation; Trawl never elicits',
  'elicitation-sep1034-defaults': 'calls a fixture elicitation tool; Trawl never elicits',
  'elicitation-sep1330-enums': 'calls a fixture elicitation tool; Trawl never elicits',
  'json-schema-2020-12': 'lists the fixture tool json_schema_2020_12_tool',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'subscribes to a fixture resource; Trawl declares no resource subscriptions',
  'resources-unsubscribe': 'unsubscribes from a fixture resource; Trawl declares no resource subscriptions',
  'prompts-list': 'lists the fixture prompts; Trawl serves no prompts',
  'prompts-get-simple': 'gets a fixture prompt; Trawl serves no prompts',
  'prompts-get-with-args': 'gets a fixture prompt; Trawl serves no prompts',
  'prompts-get-embedded-resource': 'gets a fixture prompt; Trawl serves no prompts',
  'prompts-get-with-image': 'gets a fixture prompt; Trawl serves no prompts',
};

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** The suite in `cache` and Node 22, installed when missing; the paths of the Node binary and the suite's CLI. */
function install(cache) {
  const node = nodeLine('22').bin;
  const cli = path.join(cache, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const pkg = path.join(cache, 'node_modules/@modelcontextprotocol/conformance/package.json');
  const installed = fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).version === '0.1.16';
  if (!installed) {
    fs.mkdirSync(cache, { recursive: true });
    console.error(`installing ${SUITE} into ${cache}`);
    execFileSync('npm', ['install', '--prefix', cache, SUITE, '--no-audit', '--no-fund', '--loglevel', 'error'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return { node, cli };
}

/** `trawl serve` on a fresh data directory, keyless on loopback; its URL and a stop function. */
async function serve(dataDir) {
  const args = [CLI, 'serve', '--data-dir', dataDir, '--host', '127.0.0.1', '--port', '0'];
  args.push('--mcp-keyless', 'true', '--tools', 'all', '--log-level', 'info');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`trawl serve did not start:\n${log}`)), 20_000);
    child.stderr.on('data', (chunk) => {
      log += chunk.toString();
      const found = /listening on (http:\/\/[\d.:]+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`trawl serve exited (${code}):\n${log}`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { url, stop };
}

/** Runs the suite (`args`) with Node 22; the checks of each scenario it ran, by scenario name. */
function runSuite(node, cli, url, outDir, args) {
  try {
    execFileSync(node, [cli, 'server', '--url', `${url}/mcp`, '-o', outDir, ...args], { stdio: 'ignore' });
  } catch {
    // a scenario that fails makes the CLI exit non-zero: the checks below say which
  }
}

function readChecks(outDir) {
  const byScenario = new Map();
  for (const dir of fs.readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1];
    const file = path.join(outDir, dir, 'checks.json');
    if (!scenario || !fs.existsSync(file)) continue;
    byScenario.set(scenario, JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  return byScenario;
}

async function main() {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const cache = option('--cache', process.env.TRAWL_CONFORMANCE_CACHE ?? path.join(os.tmpdir(), 'trawl-conformance'));
  const report = option('--report', path.join(cache, 'report.md'));
  const { node, cli } = install(cache);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-conformance-run-'));
  const server = await serve(path.join(work, 'data'));
  const outDir = path.join(work, 'results');
  try {
    runSuite(node, cli, server.url, outDir, []); // the active suite
    runSuite(node, cli, server.url, outDir, ['--scenario', 'server-sse-polling']); // pending, applies
    runSuite(node, cli, server.url, outDir, ['--scenario', 'json-schema-2020-12']);
  } finally {
    await server.stop();
  }
  const checks = readChecks(outDir);
  const rows = [];
  let failed = 0;
  for (const [scenario, list] of [...checks].sort(([a], [b]) => a.localeCompare(b))) {
    const failures = list.filter((c) => c.status === 'FAILURE');
    const warnings = list.filter((c) => c.status === 'WARNING').length;
    if (APPLICABLE[scenario]) {
      const verdict = failures.length ? 'fail' : 'pass';
      if (failures.length) failed++;
      const note = failures.map((c) => c.errorMessage ?? c.id).join('; ') || (warnings ? `${warnings} warning(s)` : '');
      rows.push([scenario, verdict, `${APPLICABLE[scenario]}${note ? `: ${note}` : ''}`]);
    } else if (NOT_APPLICABLE[scenario]) {
      rows.push([scenario, 'not applicable', NOT_APPLICABLE[scenario]]);
    } else {
      failed++;
      rows.push([scenario, failures.length ? 'fail (new scenario)' : 'pass (new scenario)', 'not classified in scripts/conformance.mjs']); // prettier-ignore
    }
  }
  for (const scenario of Object.keys(APPLICABLE)) {
    if (!checks.has(scenario)) {
      failed++;
      rows.push([scenario, 'fail', 'the suite did not run it']);
    }
  }
  const table = [
    `Conformance: ${SUITE} (Node ${execFileSync(node, ['--version']).toString().trim()}), server scenarios against trawl serve's /mcp`,
    '',
    '| Scenario | Result | What it checks, or why it does not apply |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| \`${r[0]}\` | ${r[1]} | ${r[2]} |`),
    '',
  ].join('\n');
  fs.writeFileSync(report, table);
  console.log(table);
  console.error(`report: ${report}`);
  fs.rmSync(work, { recursive: true, force: true });
  if (failed) {
    console.error(`${failed} applicable scenario(s) failed`);
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
