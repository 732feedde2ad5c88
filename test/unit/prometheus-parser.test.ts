/**
 * The strict Prometheus text-format parser of the tests (test/helpers/prometheus.ts): it reads a valid
 * exposition, and refuses each fault a scrape could have, naming it.
 */
import { describe, expect, it } from 'vitest';
import { parsePrometheus, valueOf } from '../helpers/prometheus.js';

const VALID = `# HELP up_total Things.
# TYPE up_total counter
up_total{door="rest",operation="search"} 3
up_total{door="mcp",operation="a \\"quoted\\" \\\\ back\\nslash"} 1
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{op="x",le="0.1"} 1
lat_seconds_bucket{op="x",le="1"} 2
lat_seconds_bucket{op="x",le="+Inf"} 2
lat_seconds_sum{op="x"} 0.6
lat_seconds_count{op="x"} 2
# HELP g A gauge.
# TYPE g gauge
g -1.5e-3
`;

/** VALID with `from` replaced by `to`. */
const broken = (from: string, to: string) => {
  expect(VALID).toContain(from);
  return VALID.replace(from, to);
};

describe('the Prometheus text-format parser', () => {
  it('reads families, label escapes, histograms and values', () => {
    const families = parsePrometheus(VALID);
    expect([...families.keys()]).toEqual(['up_total', 'lat_seconds', 'g']);
    expect(families.get('up_total')!.type).toBe('counter');
    expect(families.get('up_total')!.samples[1]!.labels.operation).toBe('a "quoted" \\ back\nslash');
    expect(valueOf(families, 'up_total')).toBe(4);
    expect(valueOf(families, 'up_total', { door: 'rest' })).toBe(3);
    expect(valueOf(families, 'lat_seconds_count', { op: 'x' })).toBe(2);
    expect(valueOf(families, 'g')).toBe(-0.0015);
  });

  it.each([
    ['a sample before its TYPE', broken('# TYPE g gauge\n', ''), /without HELP and TYPE/],
    ['a sample without HELP', broken('# HELP g A gauge.\n', ''), /without HELP and TYPE/],
    ['a second TYPE line', broken('# TYPE g gauge\n', '# TYPE g gauge\n# TYPE g gauge\n'), /second TYPE/],
    ['an unknown type', broken('# TYPE g gauge', '# TYPE g meter'), /unknown type/],
    ['a bad metric name', broken('g -1.5e-3', '9g -1.5e-3'), /bad sample name/],
    ['a bad label name', broken('{door="rest"', '{do-or="rest"'), /bad label name/],
    ['an unquoted label value', broken('{door="rest"', '{door=rest'), /not quoted/],
    ['a bad escape', broken('operation="search"', 'operation="se\\arch"'), /bad escape/],
    ['an unterminated value', broken('operation="search"} 3', 'operation="search} 3'), /expected "," or "}"|unterminated/], // prettier-ignore
    ['a bad value', broken('} 3\n', '} three\n'), /bad value/],
    ['trailing text', broken('} 3\n', '} 3 12 extra\n'), /trailing text/],
    ['a series twice', broken('g -1.5e-3\n', 'g -1.5e-3\ng 2\n'), /twice/],
    ['a negative counter', broken('} 3\n', '} -3\n'), /counter below 0/],
    ['le not increasing', broken('le="1"} 2', 'le="0.05"} 2'), /le not increasing/],
    ['no +Inf bucket', broken('lat_seconds_bucket{op="x",le="+Inf"} 2\n', ''), /no \+Inf/],
    ['counts not cumulative', broken('le="1"} 2', 'le="1"} 0'), /not cumulative/],
    ['_count unlike +Inf', broken('lat_seconds_count{op="x"} 2', 'lat_seconds_count{op="x"} 3'), /_count is not/],
    ['no _sum', broken('lat_seconds_sum{op="x"} 0.6\n', ''), /no _sum/],
    ['no final newline', VALID.trimEnd(), /newline/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parsePrometheus(text)).toThrow(message);
  });
});
