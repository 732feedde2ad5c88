/**
 * Numbers and booleans sent as strings: some MCP clients send every argument as text (MCP Inspector's
 * CLI sends `tokensNum=300` as `"300"`), which the advertised schema of a field such as `tokensNum`
 * (`["string", "integer"]`) admits. The MCP door reads such a string as the number (or boolean) it
 * spells when the field refuses the string and takes the value. REST keeps the spec's types exactly.
 */
import type { z } from 'zod';

/** A decimal number as JSON writes it: no spaces, no hex, no leading `+`, no `Infinity`. */
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** The value a string spells, when it spells a number or a boolean. */
function spelled(text: string): number | boolean | undefined {
  if (NUMBER.test(text)) return Number(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

/** `args` with each top-level string the field refuses, and would take as the number or boolean it spells, replaced by that value. */
export function coerceSpelledArgs(schema: z.ZodObject, args: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') continue;
    const field = schema.shape[key] as z.ZodType | undefined;
    const typed = spelled(value);
    if (!field || typed === undefined || field.safeParse(value).success) continue;
    if (!field.safeParse(typed).success) continue; // wrong either way: the error names the string sent
    out ??= { ...args };
    out[key] = typed;
  }
  return out ?? args;
}
