/**
 * The status of an installation, for `trawl doctor` and `GET /status`: the data directory, what the
 * store holds, each provider and whether it answers (calls that cost nothing, in parallel), the keys,
 * the listener, and the next steps. Free of secrets by construction (./redact.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { GetJson } from '../../providers/search/types.js';
import { sqliteVersion } from '../../store/sqlite/status.js';
import type { StatusRepo, StoreCounts, StoreStatus } from '../../store/contracts/status.js';
import { VERSION } from '../../version.js';
import type { CodeModelState } from '../code/model/shipped-model.js';
import { codeModelCheck } from './code-model-check.js';
import { dataDirStatus } from './data-dir.js';
import { nextSteps } from './next-steps.js';
import { oauthChecks, type OAuthSettings } from './oauth-check.js';
import {
  braveCheck,
  off,
  probeListener,
  type ListenerStores,
  probeModels,
  probeSearxng,
  probeUpstream,
  type ProbeDeps,
} from './probes.js';
import { publicUrl, urlSecrets } from './redact.js';
import { storeIdentity } from './store-identity.js';
import { nodeLineStatus } from './node-line.js';
import type { Check, StatusReport } from './report.js';

export type { StatusReport } from './report.js';

/** The settings a report reads (a `Config` passes as it is). Secrets are used for the checks, never shown. */
export interface StatusSettings extends OAuthSettings {
  dataDir: string;
  host: string;
  port: number;
  searxngUrl?: string;
  braveApiKey?: string;
  upstreamUrl?: string;
  upstreamApiKey?: string;
  modelBaseUrl?: string;
  model: string;
  modelApiKey?: string;
  embeddingsUrl?: string;
  embeddingsModel: string;
  embeddingsApiKey?: string;
  browser?: string;
  providerTimeoutMs: number;
  secretKey?: string;
  x402FacilitatorApiKey?: string;
  /** The shared store's URL: only its password is read, to keep it out of the report. */
  databaseUrl?: string;
  databaseSchema?: string;
  /** The per-user data directory, named when the listener serves it and this report reads another. */
  defaultDataDir?: string;
  /** `TRAWL_CODE_MODEL`: a model file, `off`, or unset for the shipped one. */
  codeModel?: string;
}

/** What the service is built on: the settings, the JSON client and the store. */
export interface StatusDeps {
  settings: StatusSettings;
  /** The operator-endpoint JSON client's GET (src/fetch/api-client.ts). */
  getJson: GetJson;
  /** The store's counts (absent when the data directory holds no database yet); a throw is reported. */
  store?: StatusRepo;
  /** What to report of the store when `store` is absent or cannot be read (default: SQLite's version). */
  backend?: StoreStatus;
  now?: () => Date;
  /** The code model's state in a running app (else the report reads the model file itself). */
  codeModel?: () => CodeModelState;
  /** The Node.js version to report (default: this process's). */
  nodeVersion?: string;
}

/** Reports the status of the installation. */
export interface StatusService {
  /** The whole report; never throws for a failing check (it becomes a `failed` state and a step). */
  report(signal?: AbortSignal): Promise<StatusReport>;
}

/** The file `trawl serve` writes the first key to (src/cli/serve.command.ts). */
export const FIRST_KEY_FILE = 'first-api-key';
/** The listener is on this machine: it answers at once or not at all. */
const LISTENER_TIMEOUT_MS = 2000;

const NO_COUNTS: StoreCounts = {
  documents: 0,
  searchable: 0,
  embeddedChunks: 0,
  codeChunks: 0,
  codeFiles: 0,
  codeSources: 0,
  collections: [],
  collectionCount: 0,
  adminKeys: [],
  activeKeys: 0,
  revokedKeys: 0,
};

/** A configured browser must be an executable file; checking it starts nothing. */
function browserCheck(executable: string | undefined): Check {
  if (!executable) return off('browser', 'not configured (--browser)');
  try {
    fs.accessSync(executable, fs.constants.X_OK);
    if (!fs.statSync(executable).isFile()) throw new Error('it is not a file');
    return { name: 'browser', configured: true, state: 'ok', detail: `${executable} is an executable file` };
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^\w+: /, '') : String(err);
    return { name: 'browser', configured: true, state: 'failed', detail: `${executable} cannot be run: ${why}` };
  }
}

/** Every provider check, run at once. */
async function providerChecks(
  s: StatusSettings,
  deps: ProbeDeps,
  codeModel?: CodeModelState,
): Promise<StatusReport['providers']> {
  const keySetting = (flag: string) => `set ${flag}`;
  const [searxng, upstream, model, embeddings] = await Promise.all([
    s.searxngUrl ? probeSearxng(s.searxngUrl, deps) : off('searxng', 'not configured (--searxng-url)'),
    s.upstreamUrl ? probeUpstream(s.upstreamUrl, deps) : off('upstream', 'not configured (--upstream-url)'),
    s.modelBaseUrl
      ? probeModels(
          'model',
          { baseUrl: s.modelBaseUrl, apiKey: s.modelApiKey, model: s.model, keySetting: keySetting('--model-api-key') },
          deps,
        )
      : off('model', 'not configured (--model-base-url)'),
    s.embeddingsUrl
      ? probeModels(
          'embeddings',
          {
            baseUrl: s.embeddingsUrl,
            apiKey: s.embeddingsApiKey,
            model: s.embeddingsModel,
            keySetting: keySetting('--embeddings-api-key'),
          },
          deps,
        )
      : off('embeddings', 'not configured (--embeddings-url)'),
  ]);
  return {
    webSearch: [searxng, braveCheck(Boolean(s.braveApiKey)), upstream],
    model,
    embeddings,
    browser: browserCheck(s.browser),
    codeModel: codeModelCheck(s.codeModel, Boolean(s.embeddingsUrl), codeModel),
  };
}

/** The store's engine and version; when it cannot be read, what is known and why. */
async function readStore(store: StatusRepo | undefined, fallback: StoreStatus): Promise<StoreStatus> {
  try {
    return store ? await store.store() : fallback;
  } catch (err) {
    return { ...fallback, problem: err instanceof Error ? err.message : String(err) };
  }
}

/** The store's counts, or zeros and the reason when the database cannot be read. */
async function readCounts(store: StatusRepo | undefined): Promise<{ counts: StoreCounts; problem?: string }> {
  try {
    return { counts: (await store?.counts()) ?? NO_COUNTS };
  } catch (err) {
    return { counts: NO_COUNTS, problem: err instanceof Error ? err.message : String(err) };
  }
}

function indexOf(c: StoreCounts): StatusReport['index'] {
  return {
    documents: c.documents,
    searchable: c.searchable,
    embeddedChunks: c.embeddedChunks,
    code: { chunks: c.codeChunks, files: c.codeFiles, sources: c.codeSources },
    collections: c.collections,
    collectionCount: c.collectionCount,
  };
}

/** Builds the service over the settings, the JSON client and (when there is a database) the store. */
export function createStatusService(deps: StatusDeps): StatusService {
  const s = deps.settings;
  const secrets = [
    s.braveApiKey,
    s.upstreamApiKey,
    s.modelApiKey,
    s.embeddingsApiKey,
    s.secretKey,
    s.x402FacilitatorApiKey,
    ...urlSecrets(s.searxngUrl),
    ...urlSecrets(s.upstreamUrl),
    ...urlSecrets(s.modelBaseUrl),
    ...urlSecrets(s.embeddingsUrl),
    ...urlSecrets(s.databaseUrl),
  ];
  return {
    async report(signal) {
      const probe: ProbeDeps = { getJson: deps.getJson, timeoutMs: s.providerTimeoutMs, secrets, signal };
      const [providers, listener, signIn] = await Promise.all([
        providerChecks(s, probe, deps.codeModel?.()),
        probeListener(
          s.host,
          s.port,
          { ...probe, timeoutMs: Math.min(LISTENER_TIMEOUT_MS, s.providerTimeoutMs) },
          listenerStores(s),
        ),
        oauthChecks(s, probe),
      ]);
      const [{ counts, problem }, store] = await Promise.all([
        readCounts(deps.store),
        readStore(deps.store, deps.backend ?? { backend: 'sqlite', version: sqliteVersion() }),
      ]);
      const firstKey = path.join(s.dataDir, FIRST_KEY_FILE);
      const now = deps.now?.() ?? new Date();
      const facts = {
        // a shared store that cannot be read is the store's problem (below), not the data directory's
        dataDir: { ...dataDirStatus(s.dataDir), ...(problem && !store.problem ? { databaseProblem: problem } : {}) },
        store,
        index: indexOf(counts),
        keys: {
          active: counts.activeKeys,
          revoked: counts.revokedKeys,
          admins: counts.adminKeys,
          firstKeyFile: fs.existsSync(firstKey) ? firstKey : null,
        },
        providers,
        listener,
        signIn,
        runtime: nodeLineStatus(deps.nodeVersion ?? process.version, now),
      };
      const steps = nextSteps(facts, now);
      const checkedAt = now.toISOString();
      return {
        version: VERSION,
        checkedAt,
        ok: !steps.some((step) => step.level === 'broken'),
        ...facts,
        nextSteps: steps,
      };
    },
  };
}

/** The store this report reads, and the default data directory, to compare with the listener's. */
function listenerStores(s: StatusSettings): ListenerStores {
  const mine = s.databaseUrl
    ? `the database ${publicUrl(s.databaseUrl)} (schema ${s.databaseSchema ?? 'public'})`
    : `the data directory ${s.dataDir}`;
  const known =
    s.defaultDataDir && !s.databaseUrl && s.defaultDataDir !== s.dataDir
      ? [{ id: storeIdentity({ dataDir: s.defaultDataDir }), shown: `the default data directory ${s.defaultDataDir}` }]
      : [];
  return { mine: storeIdentity(s), mineShown: mine, known };
}
