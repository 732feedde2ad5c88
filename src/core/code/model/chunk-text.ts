/**
 * A chunk's code without its doc, as the code model reads it: the model learned to match a question to
 * code it had not seen the doc of (the doc is the question), so at search time the doc is read apart.
 * The miner (scripts/code-model/pairs.mjs) takes its answers out of chunks with this same function.
 */

// The text before a docstring: a `def`/`class` header ending in `:`, blank lines, then the string's prefix.
const DOC_FOLLOWS_HEADER = /\b(?:def|class)\b[\s\S]*:[ \t]*(?:#[^\n]*)?\n(?:[ \t]*\n)*[ \t]*[rRuUbB]{0,2}$/;
const TRIPLE = /"""|'''/;
const LEADING_COMMENTS = /^(?:[ \t]*(?:\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)[ \t]*\n)+/;

/** The code with its doc taken out: the docstring after a Python `def`/`class` header, or the comments above a declaration. */
export function codeWithoutDoc(code: string, language: string): string {
  let out = code.replace(LEADING_COMMENTS, '');
  if (language === 'python') {
    // the docstring is the first statement after the (possibly multi-line) header
    const open = TRIPLE.exec(out);
    if (open && DOC_FOLLOWS_HEADER.test(out.slice(0, open.index))) {
      const close = out.indexOf(open[0], open.index + 3);
      if (close > 0) {
        const lineStart = out.lastIndexOf('\n', open.index) + 1;
        const lineEnd = out.indexOf('\n', close + 3);
        out = out.slice(0, lineStart) + (lineEnd < 0 ? '' : out.slice(lineEnd + 1));
      }
    }
  }
  return out.replace(/\n{3,}/g, '\n\n').trimEnd();
}
