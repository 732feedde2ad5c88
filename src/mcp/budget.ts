/**
 * The MCP answer-size guard: a tool answer (its text and its structuredContent) is kept under the
 * configured token budget, so no answer overflows a client's context. Texts are cut first (longest
 * first), then the last results are dropped; the text says what was cut.
 */

/** Characters per token assumed for the budget (a common estimate for English text and code). */
export const CHARS_PER_TOKEN = 4;

type Result = Record<string, unknown> & { text?: unknown; highlights?: unknown; subpages?: unknown };

const size = (v: unknown) => JSON.stringify(v)?.length ?? 0;

/**
 * Cuts `output.results[].text` (then drops results) until the text rendering and the structured output
 * together fit `maxTokens`. Returns the (possibly new) output and a note, or the output unchanged.
 */
export function fitToBudget(
  output: unknown,
  render: (out: unknown) => string,
  maxTokens: number,
): { output: unknown; text: string } {
  const budget = maxTokens * CHARS_PER_TOKEN;
  let text = render(output);
  const total = () => text.length + size(output);
  if (total() <= budget) return { output, text };
  const results = (output as { results?: Result[] }).results;
  if (!Array.isArray(results)) return { output, text: clipText(text, budget) };
  const out = { ...(output as object), results: results.map((r) => ({ ...r })) } as { results: Result[] };
  let cut = 0;
  // halve the longest text until it fits or no text is longer than 500 characters
  for (let guard = 0; guard < 200 && text.length + size(out) > budget; guard++) {
    const longest = out.results.reduce<Result | null>(
      (a, r) => (typeof r.text === 'string' && (!a || (r.text as string).length > (a.text as string).length) ? r : a),
      null,
    );
    if (!longest || (longest.text as string).length <= 500) break;
    longest.text = (longest.text as string).slice(0, Math.floor((longest.text as string).length / 2));
    cut++;
    text = render(out);
  }
  let dropped = 0;
  while (out.results.length > 1 && text.length + size(out) > budget) {
    out.results.pop();
    dropped++;
    text = render(out);
  }
  const note = [
    cut ? 'page texts were shortened' : '',
    dropped ? `the last ${dropped} result(s) were left out` : '',
  ].filter(Boolean);
  text = clipText(text, budget - size(out));
  if (note.length) {
    text += `\n\n[Answer cut to fit ${maxTokens} tokens: ${note.join('; ')}. Ask for fewer results or read pages with get_contents.]`;
  }
  return { output: out, text };
}

function clipText(text: string, max: number): string {
  const room = Math.max(1000, max);
  return text.length <= room ? text : `${text.slice(0, room)}\n[... cut to fit the answer budget]`;
}
