/**
 * What a status report tells its reader to do: each configured part that is broken, each missing part
 * worth adding, with the command or settings that fix it. Broken steps first; the order is stable.
 */
import type { Check, NextStep, StatusReport } from './report.js';
import { livingLines } from './node-line.js';

/** The facts of a report that steps are drawn from. */
export type Facts = Pick<
  StatusReport,
  'dataDir' | 'store' | 'index' | 'keys' | 'providers' | 'listener' | 'signIn' | 'runtime'
>;

/** A replica this far behind the shared document log is worth a note (ms). */
const LAGGING_MS = 30_000;

/** A step that is worth doing, and one without which something does not work. */
const note = (message: string, fix: string): NextStep => ({ level: 'note', message, fix });
const broken = (message: string, fix: string): NextStep => ({ level: 'broken', message, fix });

/** The shared store: unreachable (broken), behind on migrations, or with a replica far behind. */
function storeSteps(f: Facts): NextStep[] {
  const s = f.store;
  if (s.backend !== 'postgres') return [];
  if (s.problem) {
    return [
      broken(
        `PostgreSQL at ${s.url ?? 'TRAWL_DATABASE_URL'} (schema ${s.schema ?? 'public'}): ${s.problem}.`,
        'Start the server, or correct --database-url and --database-schema (TRAWL_DATABASE_URL, TRAWL_DATABASE_SCHEMA).',
      ),
    ];
  }
  const steps: NextStep[] = [];
  if (s.schemaVersion === 0) {
    steps.push(
      note(
        `The schema ${s.schema ?? 'public'} holds no Trawl tables yet.`,
        'Start a replica (trawl serve) or run trawl migrate: the first to start creates them.',
      ),
    );
  }
  for (const r of s.replicas ?? []) {
    if (r.lagMs < LAGGING_MS) continue;
    steps.push(
      note(
        `Replica ${r.id} is ${r.behind} documents behind the shared store, for ${Math.round(r.lagMs / 1000)} s.`,
        'Look at its log for errors following the shared document log; it catches up on its own when it can.',
      ),
    );
  }
  return steps;
}

/** What fixes a broken check, by its name. */
const FIX_OF: Record<string, string> = {
  searxng:
    'Start SearXNG, or correct --searxng-url (TRAWL_SEARXNG_URL); unset it to search without SearXNG (docs/providers.md).',
  upstream:
    'Check the service, or correct --upstream-url and --upstream-api-key (TRAWL_UPSTREAM_URL, TRAWL_UPSTREAM_API_KEY); unset them to do without it.',
  model:
    'Start the model server, or correct --model-base-url and --model-api-key (TRAWL_MODEL_BASE_URL, TRAWL_MODEL_API_KEY); unset them to answer without a model.',
  embeddings:
    'Start the embeddings server, or correct --embeddings-url and --embeddings-api-key (TRAWL_EMBEDDINGS_URL, TRAWL_EMBEDDINGS_API_KEY); unset them to rank by words only.',
  codeModel:
    'Reinstall Trawl (the package carries models/code-retriever.bin), or set --code-model to a model file (TRAWL_CODE_MODEL); `off` ranks code by words on purpose.',
  server:
    'Set --public-url (TRAWL_PUBLIC_URL) to the URL clients reach this server at, or TRAWL_OAUTH=off (docs/operations.md#trawl-as-its-own-oauth-authorization-server).',
  issuer:
    'Check that the authorization server answers from this machine, and that --auth-issuer (TRAWL_AUTH_ISSUER) is written exactly as its tokens’ `iss` (docs/install.md#deployment-with-an-external-authorization-server).',
  oidc: 'Check that the identity provider answers from this machine, and that --oidc-issuer (TRAWL_OIDC_ISSUER) is its issuer exactly (docs/accounts.md).',
  browser:
    'Install Chromium (Debian: apt-get install chromium) or correct --browser (TRAWL_BROWSER); unset it to do without.',
};

const LABEL: Record<string, string> = {
  searxng: 'SearXNG',
  upstream: 'The upstream service',
  model: 'The model API',
  embeddings: 'The embeddings API',
  browser: 'The browser',
  codeModel: 'The code model',
  server: 'Trawl’s authorization server',
  issuer: 'The external authorization server',
  oidc: 'The organisation’s identity provider',
};

function brokenChecks(checks: Check[]): NextStep[] {
  return checks
    .filter((c) => c.state === 'failed')
    .map((c) =>
      broken(
        `${LABEL[c.name] ?? c.name}${c.url ? ` at ${c.url}` : ''}: ${c.detail}.`,
        FIX_OF[c.name] ?? 'Correct its settings, or unset them to do without it.',
      ),
    );
}

function dataDirSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { path, writable, problem, databaseProblem } = f.dataDir;
  if (!writable) {
    steps.push(
      broken(
        `The data directory ${path} cannot be written: ${problem ?? 'permission denied'}.`,
        'Fix its permissions, or choose another with --data-dir DIR (TRAWL_DATA_DIR).',
      ),
    );
  }
  if (databaseProblem) {
    steps.push(
      broken(
        `The database in ${path} cannot be read: ${databaseProblem}`,
        'Upgrade Trawl if the database is newer; else restore it from a backup (docs/operations.md).',
      ),
    );
  }
  return steps;
}

function indexSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { index } = f;
  if (index.documents === 0) {
    steps.push(
      note(
        'The index is empty: /search has no pages of its own to answer from.',
        'trawl crawl URL (a documentation site), or trawl import FILE (JSONL records, or a folder of HTML/Markdown/text).',
      ),
    );
  } else if (index.searchable < index.documents) {
    steps.push(
      note(
        `${index.documents - index.searchable} stored documents are not in the search index.`,
        'trawl index rebuild',
      ),
    );
  }
  if (index.code.chunks === 0) {
    steps.push(
      note(
        'No code is indexed: /context and get_code_context have no code to answer from.',
        'trawl index PATH (a folder or a git URL; --packages adds node_modules), or trawl import --code FILE.',
      ),
    );
  }
  return steps;
}

function providerSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { webSearch, model, embeddings, browser } = f.providers;
  if (!webSearch.some((c) => c.configured)) {
    steps.push(
      note(
        'No web-search provider is configured: /search answers from the local index only.',
        '--searxng-url URL, --brave-api-key KEY or --upstream-url URL (docs/providers.md).',
      ),
    );
  }
  if (!model.configured) {
    steps.push(
      note(
        "No model is configured: answers and summaries are extracted from the sources (or written by an MCP client's own model).",
        '--model-base-url URL and --model NAME, e.g. http://127.0.0.1:11434/v1 for Ollama (docs/synthesis.md).',
      ),
    );
  } else if (model.state === 'unverified') {
    steps.push(note(`The model API: ${model.detail}.`, '--model NAME, one it serves.'));
  }
  if (!embeddings.configured) {
    steps.push(
      note(
        'No embeddings API is configured: search and highlights rank by words only.',
        '--embeddings-url URL and --embeddings-model NAME (docs/contents.md).',
      ),
    );
  }
  const { codeModel } = f.providers;
  if (codeModel.state === 'off' && codeModel.detail.startsWith('missing')) {
    steps.push(
      note(`The code model${codeModel.url ? ` at ${codeModel.url}` : ''} is ${codeModel.detail}.`, FIX_OF.codeModel!),
    );
  }
  if (!browser.configured) {
    steps.push(
      note(
        'No browser is configured: pages that need JavaScript fail with CRAWL_NEEDS_BROWSER.',
        '--browser /usr/bin/chromium (Debian: apt-get install chromium).',
      ),
    );
  }
  return steps;
}

function accessSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  if (f.keys.active === 0) {
    steps.push(
      note(
        'No API key exists: the REST API and /mcp over HTTP need one (trawl mcp over stdio does not).',
        'trawl keys create --name NAME (trawl serve makes a first one on its first start).',
      ),
    );
  }
  const legacy = f.keys.admins.filter((k) => k.legacy);
  if (legacy.length > 0) {
    const named = legacy
      .slice(0, 5)
      .map((k) => `${k.id} ("${k.name}")`)
      .join(', ');
    steps.push(
      note(
        `${legacy.length} key${legacy.length === 1 ? '' : 's'} made without --scopes before keys were least-privilege ` +
          `hold${legacy.length === 1 ? 's' : ''} admin (every team's keys and credits): ${named}${legacy.length > 5 ? ', …' : ''}. ` +
          'New keys get every scope but admin.',
        'trawl keys update ID --scopes search,contents,context,monitors,agent (or revoke it); keep admin for the operator.',
      ),
    );
  }
  if (f.keys.firstKeyFile) {
    steps.push(
      note(
        `${f.keys.firstKeyFile} still holds the first API key.`,
        'Store the key where you keep secrets, then delete the file.',
      ),
    );
  }
  if (f.listener.state === 'off') {
    steps.push(
      note(`Nothing answers at ${f.listener.url}.`, 'trawl serve (or trawl mcp, run by an MCP client over stdio).'),
    );
  } else if (f.listener.otherStore) {
    steps.push(
      note(
        `At ${f.listener.url}, ${f.listener.detail}: what this report says of the index and keys is not that server's.`,
        'trawl doctor with the --data-dir (or TRAWL_DATABASE_URL) the server was started with; its "listening on" log line names its data directory.',
      ),
    );
  } else if (f.listener.state === 'unverified') {
    steps.push(note(`At ${f.listener.url}, ${f.listener.detail}.`, '--port N (TRAWL_PORT).'));
  }
  return steps;
}

/** A Node.js line past its end of life, or one that `engines` does not name. */
function runtimeSteps(f: Facts, now: Date): NextStep[] {
  const { node, supported, endOfLife, ended } = f.runtime;
  const line = node.replace(/^v(\d+)\..*$/, '$1');
  const install = `Install Node.js ${livingLines(now)}, then install Trawl again on it (npm ci in a checkout; npm install -g for the package), so that better-sqlite3 is built for that line.`; // prettier-ignore
  if (!supported)
    return [note(`Node.js ${node} is not a line Trawl supports (engines: 20.19+, 22.12+, 24+).`, install)];
  if (ended) return [note(`Node.js ${line} reached its end of life on ${endOfLife}: it gets no more security fixes.`, install)]; // prettier-ignore
  return [];
}

/** The steps of a report: broken parts first (data directory, providers, browser), then the notes. */
export function nextSteps(f: Facts, now = new Date()): NextStep[] {
  const { webSearch, model, embeddings, browser, codeModel } = f.providers;
  return [
    ...dataDirSteps(f),
    ...storeSteps(f),
    ...brokenChecks([...webSearch, model, embeddings, browser, codeModel, ...f.signIn]),
    ...indexSteps(f),
    ...providerSteps(f),
    ...accessSteps(f),
    ...runtimeSteps(f, now),
  ];
}
