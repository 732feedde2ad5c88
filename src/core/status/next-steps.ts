/**
 * What a status report tells its reader to do: each configured part that is broken, each missing part
 * worth adding, with the command or settings that fix it. Broken steps first; the order is stable.
 */
import type { Check, NextStep, StatusReport } from './report.js';

/** The facts of a report that steps are drawn from. */
export type Facts = Pick<StatusReport, 'dataDir' | 'store' | 'index' | 'keys' | 'providers' | 'listener'>;

/** A replica this far behind the shared document log is worth a note (ms). */
const LAGGING_MS = 30_000;

/** The shared store: unreachable (broken), behind on migrations, or with a replica far behind. */
function storeSteps(f: Facts): NextStep[] {
  const s = f.store;
  if (s.backend !== 'postgres') return [];
  if (s.problem) {
    return [
      {
        level: 'broken',
        message: `PostgreSQL at ${s.url ?? 'TRAWL_DATABASE_URL'} (schema ${s.schema ?? 'public'}): ${s.problem}.`,
        fix: 'Start the server, or correct --database-url and --database-schema (TRAWL_DATABASE_URL, TRAWL_DATABASE_SCHEMA).',
      },
    ];
  }
  const steps: NextStep[] = [];
  if (s.schemaVersion === 0) {
    steps.push({
      level: 'note',
      message: `The schema ${s.schema ?? 'public'} holds no Trawl tables yet.`,
      fix: 'Start a replica (trawl serve) or run trawl migrate: the first to start creates them.',
    });
  }
  for (const r of s.replicas ?? []) {
    if (r.lagMs < LAGGING_MS) continue;
    steps.push({
      level: 'note',
      message: `Replica ${r.id} is ${r.behind} documents behind the shared store, for ${Math.round(r.lagMs / 1000)} s.`,
      fix: 'Look at its log for errors following the shared document log; it catches up on its own when it can.',
    });
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
};

function brokenChecks(checks: Check[]): NextStep[] {
  return checks
    .filter((c) => c.state === 'failed')
    .map((c) => ({
      level: 'broken' as const,
      message: `${LABEL[c.name] ?? c.name}${c.url ? ` at ${c.url}` : ''}: ${c.detail}.`,
      fix: FIX_OF[c.name] ?? 'Correct its settings, or unset them to do without it.',
    }));
}

function dataDirSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { path, writable, problem, databaseProblem } = f.dataDir;
  if (!writable) {
    steps.push({
      level: 'broken',
      message: `The data directory ${path} cannot be written: ${problem ?? 'permission denied'}.`,
      fix: 'Fix its permissions, or choose another with --data-dir DIR (TRAWL_DATA_DIR).',
    });
  }
  if (databaseProblem) {
    steps.push({
      level: 'broken',
      message: `The database in ${path} cannot be read: ${databaseProblem}`,
      fix: 'Upgrade Trawl if the database is newer; else restore it from a backup (docs/operations.md).',
    });
  }
  return steps;
}

function indexSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { index } = f;
  if (index.documents === 0) {
    steps.push({
      level: 'note',
      message: 'The index is empty: /search has no pages of its own to answer from.',
      fix: 'trawl crawl URL (a documentation site), or trawl import FILE (JSONL records, or a folder of HTML/Markdown/text).',
    });
  } else if (index.searchable < index.documents) {
    steps.push({
      level: 'note',
      message: `${index.documents - index.searchable} stored documents are not in the search index.`,
      fix: 'trawl index rebuild',
    });
  }
  if (index.code.chunks === 0) {
    steps.push({
      level: 'note',
      message: 'No code is indexed: /context and get_code_context have no code to answer from.',
      fix: 'trawl index PATH (a folder or a git URL; --packages adds node_modules), or trawl import --code FILE.',
    });
  }
  return steps;
}

function providerSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  const { webSearch, model, embeddings, browser } = f.providers;
  if (!webSearch.some((c) => c.configured)) {
    steps.push({
      level: 'note',
      message: 'No web-search provider is configured: /search answers from the local index only.',
      fix: '--searxng-url URL, --brave-api-key KEY or --upstream-url URL (docs/providers.md).',
    });
  }
  if (!model.configured) {
    steps.push({
      level: 'note',
      message:
        "No model is configured: answers and summaries are extracted from the sources (or written by an MCP client's own model).",
      fix: '--model-base-url URL and --model NAME, e.g. http://127.0.0.1:11434/v1 for Ollama (docs/synthesis.md).',
    });
  } else if (model.state === 'unverified') {
    steps.push({ level: 'note', message: `The model API: ${model.detail}.`, fix: '--model NAME, one it serves.' });
  }
  if (!embeddings.configured) {
    steps.push({
      level: 'note',
      message: 'No embeddings API is configured: search and highlights rank by words only.',
      fix: '--embeddings-url URL and --embeddings-model NAME (docs/contents.md).',
    });
  }
  const { codeModel } = f.providers;
  if (codeModel.state === 'off' && codeModel.detail.startsWith('missing')) {
    steps.push({
      level: 'note',
      message: `The code model${codeModel.url ? ` at ${codeModel.url}` : ''} is ${codeModel.detail}.`,
      fix: FIX_OF.codeModel,
    });
  }
  if (!browser.configured) {
    steps.push({
      level: 'note',
      message: 'No browser is configured: pages that need JavaScript fail with CRAWL_NEEDS_BROWSER.',
      fix: '--browser /usr/bin/chromium (Debian: apt-get install chromium).',
    });
  }
  return steps;
}

function accessSteps(f: Facts): NextStep[] {
  const steps: NextStep[] = [];
  if (f.keys.active === 0) {
    steps.push({
      level: 'note',
      message: 'No API key exists: the REST API and /mcp over HTTP need one (trawl mcp over stdio does not).',
      fix: 'trawl keys create --name NAME (trawl serve makes a first one on its first start).',
    });
  }
  const legacy = f.keys.admins.filter((k) => k.legacy);
  if (legacy.length > 0) {
    const named = legacy
      .slice(0, 5)
      .map((k) => `${k.id} ("${k.name}")`)
      .join(', ');
    steps.push({
      level: 'note',
      message:
        `${legacy.length} key${legacy.length === 1 ? '' : 's'} made without --scopes before keys were least-privilege ` +
        `hold${legacy.length === 1 ? 's' : ''} admin (every team's keys and credits): ${named}${legacy.length > 5 ? ', …' : ''}. ` +
        'New keys get every scope but admin.',
      fix: 'trawl keys update ID --scopes search,contents,context,monitors,agent (or revoke it); keep admin for the operator.',
    });
  }
  if (f.keys.firstKeyFile) {
    steps.push({
      level: 'note',
      message: `${f.keys.firstKeyFile} still holds the first API key.`,
      fix: 'Store the key where you keep secrets, then delete the file.',
    });
  }
  if (f.listener.state === 'off') {
    steps.push({
      level: 'note',
      message: `Nothing answers at ${f.listener.url}.`,
      fix: 'trawl serve (or trawl mcp, run by an MCP client over stdio).',
    });
  } else if (f.listener.state === 'unverified') {
    steps.push({
      level: 'note',
      message: `At ${f.listener.url}, ${f.listener.detail}.`,
      fix: '--port N (TRAWL_PORT).',
    });
  }
  return steps;
}

/** The steps of a report: broken parts first (data directory, providers, browser), then the notes. */
export function nextSteps(f: Facts): NextStep[] {
  const { webSearch, model, embeddings, browser, codeModel } = f.providers;
  return [
    ...dataDirSteps(f),
    ...storeSteps(f),
    ...brokenChecks([...webSearch, model, embeddings, browser, codeModel]),
    ...indexSteps(f),
    ...providerSteps(f),
    ...accessSteps(f),
  ];
}
