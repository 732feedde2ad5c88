/**
 * Runs the seeded fuzz cases of one endpoint, several in flight at once (each case judged, `/health`
 * checked every HEALTH_EVERY cases and at the end), and keeps what the report needs: counts per status
 * and tag, the slowest case, and the first case met that broke a rule, with its number (the same FUZZ_SEED and
 * FUZZ_RUNS draw the same cases, in the same order, so a break is replayed by its seed).
 *
 * A case over the time limit is sent once more at the end, alone: it breaks the rule only if it is slow
 * again. A busy machine (other work, the cases in flight beside it) can stretch one answer past the limit;
 * a slow path (a quadratic walk, a blocking parse) is slow every time, and so still fails.
 */
import fc from 'fast-check';
import { caseOf, type Endpoint, type FuzzCase } from './cases.js';
import type { CaseClass } from './hostile.js';
import type { Schema } from './json-arbitrary.js';
import { describeCase, healthProblem, sendCase, slowness, type Outcome } from './oracle.js';

/** What the cases of one endpoint got. */
export interface EndpointReport {
  endpoint: string;
  cases: number;
  /** `2xx`, `5xx`, or `4xx TAG` (monitor routes: `4xx {error}`) → count. */
  counts: Map<string, number>;
  maxMs: number;
  /** Cases over the time limit that were sent again alone (they broke the rule only if slow again). */
  resent: number;
  /** Cases that broke a rule (with `keepGoing`, all of them; else the first, then its shrinks). */
  violations: number;
  /** Rule breaks per case class. */
  violationsByClass: Map<string, number>;
  /** The minimal failing case and the rule it broke (with `keepGoing`: the first one met). */
  failure?: string;
}

/** Where the cases go: how one is sent and judged, and how the server's health is checked after it. */
export interface Target {
  send(c: FuzzCase): Promise<Outcome>;
  health(): Promise<string | undefined>;
}

/** The REST door at `base`, called with `key`. */
export const restTarget = (base: string, key: string): Target => ({
  send: (c) => sendCase(base, key, c),
  health: () => healthProblem(base),
});

/** The report key of an outcome. */
function bucketOf(outcome: Outcome, simple: boolean): string {
  if (outcome.status >= 200 && outcome.status < 300) return '2xx';
  if (outcome.status >= 400 && outcome.status < 500) return `4xx ${simple ? '{error}' : (outcome.tag ?? '?')}`;
  return outcome.status === 0 ? 'no answer' : `${Math.floor(outcome.status / 100)}xx`;
}

/** Cases between two checks of `/health` (and one after the last). */
const HEALTH_EVERY = 25;

/** Counts a case that broke a rule. */
function countBreak(report: EndpointReport, c: FuzzCase): void {
  report.violations++;
  report.violationsByClass.set(c.cls, (report.violationsByClass.get(c.cls) ?? 0) + 1);
}

/**
 * Sends one case and records its outcome in `report`: the rule broken, if any, or `slow` when time is
 * the only rule it broke (judged again when it is sent alone).
 */
async function tryCase(target: Target, c: FuzzCase, report: EndpointReport): Promise<string | 'slow' | undefined> {
  const outcome = await target.send(c);
  const bucket = bucketOf(outcome, c.endpoint.simpleErrors);
  report.cases++;
  report.counts.set(bucket, (report.counts.get(bucket) ?? 0) + 1);
  report.maxMs = Math.max(report.maxMs, outcome.ms);
  if (outcome.violation !== undefined && outcome.violation === slowness(outcome.ms)) return 'slow';
  if (outcome.violation) countBreak(report, c);
  return outcome.violation;
}

/** Sends each slow case again, one at a time; the first still over the limit breaks the rule. */
async function resendAlone(
  target: Target,
  slow: [number, FuzzCase][],
  report: EndpointReport,
  broke: (index: number, c: FuzzCase, problem: string) => void,
): Promise<void> {
  // prettier-ignore
  for (const [index, c] of slow) {
    report.resent++;
    const { violation } = await target.send(c);
    if (violation) {
      countBreak(report, c);
      broke(index, c, `${violation} (and again when sent alone)`);
    }
  }
}

/**
 * `numRuns` cases of `classes` for `endpoint`, drawn with `seed`, sent `concurrency` at a time (default
 * 4) after one valid case that is not judged (the route's first call). The first rule break stops the run (other cases in flight finish); with `keepGoing` every case
 * runs and is counted.
 */
export async function fuzzEndpoint(
  target: Target,
  endpoint: Endpoint,
  doc: Schema,
  classes: readonly CaseClass[],
  options: { seed: number; numRuns: number; concurrency?: number; keepGoing?: boolean },
): Promise<EndpointReport> {
  const report: EndpointReport = {
    endpoint: endpoint.name,
    cases: 0,
    counts: new Map(),
    maxMs: 0,
    resent: 0,
    violations: 0,
    violationsByClass: new Map(),
  };
  const arbitrary = caseOf(endpoint, doc, classes);
  if (!arbitrary) return report;
  const cases = fc.sample(arbitrary, { seed: options.seed, numRuns: options.numRuns });
  // a route's first call loads what it loads lazily (a model client, an index, the JIT's work): not judged
  const warm = caseOf(endpoint, doc, ['valid']);
  if (warm) await target.send(fc.sample(warm, { seed: options.seed, numRuns: 1 })[0]!);
  let next = 0;
  const slow: [number, FuzzCase][] = [];
  const broke = (index: number, c: FuzzCase | undefined, problem: string) => {
    report.failure ??= `case #${index}: ${c ? `${describeCase(c)} → ` : ''}${problem}`;
    if (!options.keepGoing) next = cases.length;
  };
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index]!;
      const problem = await tryCase(target, c, report);
      if (problem === 'slow') slow.push([index, c]);
      else if (problem) broke(index, c, problem);
      if (index % HEALTH_EVERY === HEALTH_EVERY - 1 || index === cases.length - 1) {
        const health = await target.health();
        if (health) {
          report.violations++;
          broke(index, undefined, `after case #${index}: ${health}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  if (report.failure === undefined || options.keepGoing) await resendAlone(target, slow, report, broke);
  return report;
}
