/**
 * Runs the seeded fuzz property of one endpoint (each case judged, then `/health` checked) and keeps
 * what the report needs: counts per status and tag, the slowest case, and the shrunk counterexample.
 */
import fc from 'fast-check';
import { caseOf, type Endpoint, type FuzzCase } from './cases.js';
import type { CaseClass } from './hostile.js';
import type { Schema } from './json-arbitrary.js';
import { describeCase, healthProblem, sendCase, type Outcome } from './oracle.js';

/** What the cases of one endpoint got. */
export interface EndpointReport {
  endpoint: string;
  cases: number;
  /** `2xx`, `5xx`, or `4xx TAG` (monitor routes: `4xx {error}`) → count. */
  counts: Map<string, number>;
  maxMs: number;
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

/** Sends one case and checks the server after it; the rule broken, if any. */
async function tryCase(target: Target, c: FuzzCase, report: EndpointReport): Promise<string | undefined> {
  const outcome = await target.send(c);
  const bucket = bucketOf(outcome, c.endpoint.simpleErrors);
  report.cases++;
  report.counts.set(bucket, (report.counts.get(bucket) ?? 0) + 1);
  report.maxMs = Math.max(report.maxMs, outcome.ms);
  const health = outcome.violation ? undefined : await target.health();
  const problem = outcome.violation ?? (health && `after the case: ${health}`);
  if (problem) {
    report.violations++;
    report.violationsByClass.set(c.cls, (report.violationsByClass.get(c.cls) ?? 0) + 1);
  }
  return problem;
}

/**
 * `numRuns` cases of `classes` for `endpoint` with `seed`. A failing case ends the run and is shrunk (each
 * shrink step is a case too) to the smallest one found; with `keepGoing` every case runs and is counted.
 */
export async function fuzzEndpoint(
  target: Target,
  endpoint: Endpoint,
  doc: Schema,
  classes: readonly CaseClass[],
  options: { seed: number; numRuns: number; keepGoing?: boolean },
): Promise<EndpointReport> {
  const report: EndpointReport = {
    endpoint: endpoint.name,
    cases: 0,
    counts: new Map(),
    maxMs: 0,
    violations: 0,
    violationsByClass: new Map(),
  };
  const cases = caseOf(endpoint, doc, classes);
  if (!cases) return report;
  const broken = new Map<FuzzCase, string>();
  const property = fc.asyncProperty(cases, async (c) => {
    const problem = await tryCase(target, c, report);
    if (problem) broken.set(c, problem);
    if (problem && options.keepGoing) report.failure ??= `${describeCase(c)} → ${problem}`;
    return problem === undefined || options.keepGoing === true;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.numRuns });
  if (details.failed && details.counterexample) {
    const [c] = details.counterexample;
    report.failure = `${describeCase(c)} → ${broken.get(c) ?? details.errorInstance}`;
  }
  return report;
}
