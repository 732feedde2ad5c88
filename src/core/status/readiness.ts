/**
 * Whether this process can serve now (`GET /ready`), as opposed to whether it is alive (`/health`): the
 * store answers within a short time, its schema is the one this code migrates to, no index rebuild is
 * under way, a replica's copy is not too far behind the shared store, and the process is not draining
 * (a SIGTERM arrived). Transport-free: the door turns a `ReadinessReport` into 200 or 503.
 */

/** One check of readiness: passed, or failed with the reason in words. */
export interface ReadinessCheck {
  ok: boolean;
  detail?: string;
}

/** The checks of `/ready`, by name, and whether all passed. */
export interface ReadinessReport {
  ready: boolean;
  checks: {
    draining: ReadinessCheck;
    store: ReadinessCheck;
    schema: ReadinessCheck;
    index: ReadinessCheck;
    replica: ReadinessCheck;
  };
}

/** The store's schema as it is and as this code expects it. */
export interface SchemaVersions {
  stored: number;
  expected: number;
}

/** What readiness looks at, each filled by the composition root (SQLite or PostgreSQL). */
export interface ReadinessProbes {
  /** The durable store's schema version, read with a trivial query (it throws when the store is gone). */
  schema(): Promise<SchemaVersions>;
  /** Whether an index rebuild (after an upgrade) is under way in this process. */
  rebuilding(): boolean;
  /** A following replica's lag behind the shared store, in seconds; undefined on SQLite or before its first heartbeat. */
  lagSeconds(): number | undefined;
}

export interface ReadinessOptions {
  /** How long the store may take to answer before it counts as unreachable. */
  storeTimeoutMs: number;
  /** The most a replica's copy may lag (TRAWL_READY_MAX_LAG_SECONDS). */
  maxLagSeconds: number;
}

/** The readiness of one process: its report, and the switch a SIGTERM flips. */
export interface Readiness {
  /** Every check, the store's with a time limit; never throws. */
  report(): Promise<ReadinessReport>;
  /** The process is stopping: every report from now on is not ready. */
  startDraining(): void;
  readonly draining: boolean;
}

const PASS: ReadinessCheck = { ok: true };

/** Resolves with `work`'s value, or rejects once `ms` passed without one. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The store and schema checks from one read of the schema version. */
async function storeChecks(
  probes: ReadinessProbes,
  timeoutMs: number,
): Promise<Pick<ReadinessReport['checks'], 'store' | 'schema'>> {
  try {
    const { stored, expected } = await within(probes.schema(), timeoutMs);
    const schema =
      stored === expected
        ? PASS
        : { ok: false, detail: `the store's schema is at version ${stored}; this code expects ${expected}` };
    return { store: PASS, schema };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      store: { ok: false, detail: `the store does not answer: ${why}` },
      schema: { ok: false, detail: 'unknown while the store does not answer' },
    };
  }
}

/** The readiness of a process over `probes`. */
export function createReadiness(probes: ReadinessProbes, options: ReadinessOptions): Readiness {
  let draining = false;
  return {
    async report() {
      const { store, schema } = await storeChecks(probes, options.storeTimeoutMs);
      const lag = probes.lagSeconds();
      const checks = {
        draining: draining ? { ok: false, detail: 'the process is stopping (SIGTERM): use another replica' } : PASS,
        store,
        schema,
        index: probes.rebuilding() ? { ok: false, detail: 'the search index is being rebuilt after an upgrade' } : PASS,
        replica:
          lag !== undefined && lag > options.maxLagSeconds
            ? { ok: false, detail: `this copy is ${Math.round(lag)} s behind the shared store (at most ${options.maxLagSeconds})` } // prettier-ignore
            : PASS,
      };
      return { ready: Object.values(checks).every((c) => c.ok), checks };
    },
    startDraining: () => void (draining = true),
    get draining() {
      return draining;
    },
  };
}
