// Regenerates docs/console.md and its screenshots (docs/console/*.png): runs the console's browser tests
// (test/browser/console.test.ts) with TRAWL_CONSOLE_SHOTS pointing at docs/console, where the test run
// saves a screenshot of each page as it visits it, then writes the page beside them from PAGES below.
// Needs a build (npm run build) and Chromium (/usr/bin/chromium, or TRAWL_TEST_BROWSER).
//
//   node scripts/console-docs.mjs            # the tests, the screenshots and docs/console.md
//   node scripts/console-docs.mjs --md-only  # docs/console.md from the screenshots already there
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHOTS = path.join(ROOT, 'docs', 'console');

/** Each page: its screenshot's name, title, and what it is for. The order is the nav's. */
export const PAGES = [
  [
    'signin',
    'Sign in',
    "Paste an API key once, or (with `TRAWL_OAUTH=on`) sign in through Trawl's own authorization server. The key is exchanged for a session cookie the page's script cannot read; the key itself is not kept.",
  ],
  [
    'overview',
    'Overview',
    'What `trawl doctor` and `GET /status` know, as a page: each configured part and the next step for each missing one, the index per collection, code sources, replicas and how far behind each is, recent errors. A key without `admin` sees who it is and what it may do.',
  ],
  [
    'playground',
    'Playground',
    "Search (type, filters, contents options), contents, code context and answers, with the answer's stream shown as it arrives; each result with its cost and latency, and the same request as curl, exa-js and an MCP tool call to copy.",
  ],
  [
    'index',
    'Index',
    "Collections and counts; start a crawl, an import of an uploaded JSONL file or a code index of a folder on the server (`admin`), with live progress; each crawl's frontier and failures by reason.",
  ],
  [
    'keys',
    'Keys and teams',
    'Keys with their scopes, budget and rate: create one (shown once), revoke one; teams with their credits (`admin`; a team admin sees their own team).',
  ],
  [
    'usage',
    'Usage',
    'Requests, spend and latency (p50, p95) per day, per key and per operation, as charts and as a table of the same numbers, with a CSV download. The numbers are those `trawl usage` reports.',
  ],
  [
    'monitors',
    'Monitors',
    "Monitors: list, create and edit; each one's runs with their results and its webhook deliveries with the receiver's status; retry a failed delivery.",
  ],
  [
    'runs',
    'Agent runs and MCP tasks',
    'Agent runs: start one, follow its events live (or replayed once it ended), read its output, cancel it; the MCP tasks of your key.',
  ],
];

/** docs/console.md around the pages' sections (links relative to docs/). */
const TEMPLATE = `# The web console

Trawl serves a web console at **\`/console\`** on its HTTP listener: the operator's and each team's view of
one Trawl, for what the CLI and JSON do otherwise (\`trawl keys|teams|credits|usage|monitors|doctor\`,
polling \`/agent/runs/{id}\`). Start the server (\`npm start\`) and open \`http://127.0.0.1:8787/console\`;
sign in with the API key \`trawl serve\` printed on its first start (also in the data directory's
\`first-api-key\` file), or any key of your team.

## Turning it on

| setting                              | default | what it does                                                                                                                            |
| ------------------------------------ | ------- | --------------------------------------------------------------------------------------------------------------------------------------- |
| \`TRAWL_CONSOLE\` (\`--console\`)        | \`auto\`  | \`auto\`: served when \`TRAWL_HOST\` is a loopback address; \`on\`: on any address (put TLS in front); \`off\`: every \`/console\` path is a 404. |
| \`TRAWL_CONSOLE_SESSION_IDLE_MINUTES\` | \`480\`   | A session ends after this long without a request, and after 24 hours at most.                                                           |

The console is built from \`console/\` (Preact and TypeScript, bundled by esbuild) by \`npm run build\`
into \`dist/console/\`, and ships in the package and the MCP bundle. It loads nothing from elsewhere: no
CDN, no web font, no request but to its own origin. Why Preact: the whole app is a few tens of KB of
script (the budget is 150 KB gzip for the first page), it renders text as text by default, and it has
been kept small and stable for years; the charts are plain SVG drawn by the app (no chart library).

## Signing in

- **With an API key**: paste it once. \`POST /console/session\` checks it like any request and answers
  with a session cookie, \`trawl_session\`: \`HttpOnly\` (the page's script never reads it), \`SameSite=Strict\`,
  \`Path=/\`, \`Secure\` when \`TRAWL_PUBLIC_URL\` is https. The key itself is never stored, in the browser or
  the server: the store keeps the SHA-256 of the cookie's value, the key's id and the session's CSRF token.
- **With OAuth** (\`TRAWL_OAUTH=on\`): "Sign in with Trawl" runs the authorization code flow with PKCE
  against Trawl's own authorization server, the console being the public client \`trawl-console\` whose
  back end is the server itself; the person signs in with a key of their team (or through their
  organisation, \`TRAWL_OIDC_ISSUER\`) and consents to scopes, and the session holds only those granted.
- **What a session may do** is what its key may: the same scopes (or the granted ones), the same team,
  the same rule of who owns what on every request. A key without \`admin\` sees no admin page, and the
  routes behind them answer 403 \`INSUFFICIENT_SCOPE\`; another team's monitor, run or task is a 404.
- **Sessions end** on sign-out, after the idle time, after 24 hours, and at once when their key is
  revoked or their team blocked. On PostgreSQL every replica shares them: a session started on one
  works on the others.

## Hostile content and the browser's defences

Pages Trawl fetches are written by strangers, and so is what a model answers. The console renders every
title, text, URL and model output as text, never as HTML; links to pages are \`rel="noopener noreferrer"\`
and only for \`http:\` and \`https:\` URLs (anything else is shown as text). Every console response carries a
strict Content-Security-Policy: \`default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'
data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'\`, with
\`X-Frame-Options: DENY\`, \`nosniff\` and no referrer. A request made with the session cookie must carry
the session's CSRF token in \`x-trawl-csrf\`, and its \`Origin\` and \`Sec-Fetch-Site\`, when the browser sends
them, must name the server's own origin (403 \`FORBIDDEN_ORIGIN\` otherwise). The cookie is never a
credential for \`/mcp\`.

## The console's own routes

The console calls the REST routes of the spec with its session, plus a few the spec has not: start a
crawl, an import or a code index, follow them, retry a delivery, list MCP tasks, follow an agent run
live, usage series. They live under \`/console/api/\`, each a row of the authorization matrix
([docs/accounts.md](accounts.md#who-may-do-what)) and documented in [docs/console-api.md](console-api.md);
programs may call them with an API key too.

## Pages

{{PAGES}}

## Tests

\`test/browser/console.test.ts\` drives Debian's Chromium (Playwright, \`playwright-core\`) against a real
\`trawl serve\` with a fixture site, a loopback model and a webhook receiver: sign in (with a key and through
OAuth), every page, a search in the playground, a key created and revoked, a monitor created whose
delivery shows up, an agent run followed live, a crawl started with its progress, a usage chart whose
numbers equal \`trawl usage\`'s, hostile pages rendered inert, axe-core on every page (no serious or
critical violation), the first page's script within its budget and its first render under a 2-core
throttle, a key of team B seeing nothing of team A, a key without \`admin\` kept out, and a session started
on one PostgreSQL replica working on the other. The screenshots above are made by that run
(\`node scripts/console-docs.mjs\`).
`;

function markdown() {
  const shot = (name) =>
    fs.existsSync(path.join(SHOTS, `${name}.png`))
      ? `\n![${name}](console/${name}.png)\n`
      : '\n_(no screenshot yet: run `node scripts/console-docs.mjs`)_\n';
  const pages = PAGES.map(([name, title, text]) => `### ${title}\n\n${text}\n${shot(name)}`).join('\n');
  return `<!-- Generated by scripts/console-docs.mjs; do not edit. -->\n\n${TEMPLATE.replace('{{PAGES}}', pages.trimEnd())}`;
}

if (!process.argv.includes('--md-only')) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const run = spawnSync('npx', ['vitest', 'run', 'test/browser/console.test.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TRAWL_CONSOLE_SHOTS: SHOTS },
  });
  if (run.status !== 0) {
    console.error("the console's browser tests failed: docs/console.md was not regenerated");
    process.exit(1);
  }
}
fs.writeFileSync(path.join(ROOT, 'docs', 'console.md'), markdown());
console.log('wrote docs/console.md');
