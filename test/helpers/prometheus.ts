/**
 * Test helper: a strict parser of the Prometheus text exposition format (version 0.0.4), so a scrape is
 * checked as Prometheus would read it, and stricter: every sample belongs to a family declared by one
 * `# HELP` and one `# TYPE` line before it; names and label names are valid; label values are quoted
 * with only `\\`, `\"` and `\n` escapes; no series appears twice; counters are non-negative; each
 * histogram series has increasing `le` buckets ending at `+Inf`, cumulative counts, and `_sum` and
 * `_count` with `_count` equal to the `+Inf` bucket. Anything else throws, naming the line.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, … for a histogram). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** A sample value as Go's ParseFloat reads it: a float, or `Inf`/`NaN` in any case (prom-client writes `Nan`). */
function parseValue(text: string, where: string): number {
  if (/^[+]?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value "${text}"`);
  return Number(text);
}

/** `{a="x",b="y"}` from position `i` of `line`: the labels and the position after the brace. */
function parseLabels(line: string, i: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++; // past '{'
  while (line[i] !== '}') {
    const eq = line.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: label without "="`);
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label "${name}" twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label "${name}" value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; ; j++) {
      const ch = line[j];
      if (ch === undefined) throw new Error(`${where}: unterminated value of label "${name}"`);
      if (ch === '"') break;
      if (ch === '\\') {
        const next = line[++j];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new Error(`${where}: bad escape "\\${next}" in label "${name}"`);
      } else value += ch;
    }
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`${where}: expected "," or "}" after label "${name}"`);
  }
  return { labels, end: i + 1 };
}

/** The family a sample name belongs to: itself, or for a histogram its base name. */
function familyOf(name: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const own = families.get(name);
  if (own) return own;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  const family = base ? families.get(base) : undefined;
  return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
}

/** Parses `text`; throws on the first thing Prometheus would refuse or that this helper holds wrong. */
export function parsePrometheus(text: string): Map<string, MetricFamily> {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, n) => {
    const where = `line ${n + 1} (${line.slice(0, 80)})`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`${where}: malformed`);
        return; // a comment
      }
      const [, kind, name, rest] = m as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      const family = families.get(name) ?? { name, help: '', type: 'untyped' as MetricType, samples: [] };
      if (family.samples.length > 0) throw new Error(`${where}: ${kind} after the family's samples`);
      const key = `${kind} ${name}`;
      if (seen.has(key)) throw new Error(`${where}: second ${kind} line for ${name}`);
      seen.add(key);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest as MetricType)) throw new Error(`${where}: unknown type "${rest}"`);
        family.type = rest as MetricType;
      } else {
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`${where}: bad escape in HELP`);
        family.help = rest;
      }
      families.set(name, family);
      return;
    }
    const nameEnd = line.search(/[{ ]/);
    const name = nameEnd < 0 ? line : line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`${where}: bad sample name`);
    let i = nameEnd;
    let labels: Record<string, string> = {};
    if (line[i] === '{') ({ labels, end: i } = parseLabels(line, i, where));
    if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`);
    const [valueText, timestamp, ...extra] = line.slice(i + 1).split(' ');
    if (extra.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
      throw new Error(`${where}: trailing text after the value`);
    }
    const value = parseValue(valueText ?? '', where);
    const family = familyOf(name, families);
    if (!family || !seen.has(`TYPE ${family.name}`) || !seen.has(`HELP ${family.name}`)) {
      throw new Error(`${where}: sample of a family without HELP and TYPE lines before it`);
    }
    const id = `${name}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`; // prettier-ignore
    if (seen.has(id)) throw new Error(`${where}: series ${id} twice`);
    seen.add(id);
    if (family.type === 'counter' && !(value >= 0)) throw new Error(`${where}: a counter below 0`);
    family.samples.push({ name, labels, value });
  });
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family);
  }
  return families;
}

/** A histogram's series: increasing `le` ending at +Inf, cumulative counts, `_sum` and a `_count` equal to +Inf's. */
function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  const keyOf = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).filter(([k]) => k !== 'le').sort()); // prettier-ignore
  for (const s of family.samples) {
    const entry = series.get(keyOf(s.labels)) ?? { buckets: [] };
    series.set(keyOf(s.labels), entry);
    if (s.name === `${family.name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(s.labels.le, `${family.name} le`), s.value]);
    } else if (s.name === `${family.name}_sum`) entry.sum = s.value;
    else if (s.name === `${family.name}_count`) entry.count = s.value;
    else throw new Error(`${family.name}: sample ${s.name} in a histogram`);
  }
  for (const [key, entry] of series) {
    const where = `${family.name}${key}`;
    const { buckets } = entry;
    if (buckets.length === 0 || buckets.at(-1)![0] !== Infinity) throw new Error(`${where}: no +Inf bucket last`);
    for (let i = 1; i < buckets.length; i++) {
      if (!(buckets[i]![0] > buckets[i - 1]![0])) throw new Error(`${where}: le not increasing`);
      if (buckets[i]![1] < buckets[i - 1]![1]) throw new Error(`${where}: bucket counts not cumulative`);
    }
    if (entry.sum === undefined || entry.count === undefined) throw new Error(`${where}: no _sum or _count`);
    if (entry.count !== buckets.at(-1)![1]) throw new Error(`${where}: _count is not the +Inf bucket`);
  }
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
export function valueOf(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = familyOf(name, families);
  const matching = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return matching.reduce((sum, s) => sum + s.value, 0);
}
