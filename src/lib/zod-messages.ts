/**
 * Validation messages phrased as what a value must be ("must be at most 100 (got 500)"), installed as
 * zod's global error map so that every parse says the same thing: both doors, the MCP SDK's own
 * argument parsing, and configuration. Schemas with their own message keep it.
 */
import { z } from 'zod';

type RawIssue = z.core.$ZodRawIssue;

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A caller's value for a message, in at most 40 characters; an object or array by its type (never serialized whole). */
const show = (v: unknown): string => {
  if (typeof v === 'object' && v !== null) return typeOf(v);
  const s = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
};

/** Message for one raw issue, phrased as what the value must be. Used as zod's global error map. */
export function describeIssue(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (typeof issue.input === 'number' && Number.isNaN(issue.input)) return 'must be a number';
      return `must be ${issue.expected === 'int' ? 'an integer' : `of type ${issue.expected}`} (got ${typeOf(issue.input)})`;
    case 'too_big': {
      const max = String(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${max} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${max} items`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${max} (got ${show(issue.input)})`;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `must have at least ${min} item${min === 1 ? '' : 's'}`;
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${min} (got ${show(issue.input)})`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${show(issue.values[0])}`
        : `must be one of ${issue.values.map(show).join(', ')} (got ${show(issue.input)})`;
    case 'invalid_format':
      return `must be a valid ${issue.format === 'url' ? 'URL' : issue.format}`;
    case 'unrecognized_keys':
      return issue.keys.map((k) => `${k}: unknown field`).join('; ');
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return undefined;
  }
}

z.config({ customError: describeIssue });
