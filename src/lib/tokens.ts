/**
 * Token counts as the caller's model sees them: gpt-tokenizer's `o200k_base` encoding (GPT-4o and
 * later; within a few percent of other modern tokenizers on text and code), loaded on first use so
 * start-up and the calls that count nothing do not pay for its tables.
 */

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/**
 * Texts longer than this are counted in pieces cut at white space: the tokenizer's time grows with
 * the square of one unbroken run (50,000 characters of base64 or minified code take over a second in
 * one piece, milliseconds in pieces), and a cut at white space changes the count by a token at most.
 */
const PIECE = 4096;

let counter: Promise<TokenCounter> | undefined;

/** The token counter (loaded once per process). */
export function tokenCounter(): Promise<TokenCounter> {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => piecewise(m.countTokens));
  return counter;
}

/** `count` over pieces of at most about PIECE characters, each ending at white space where one is near. */
export function piecewise(count: TokenCounter): TokenCounter {
  return (text) => {
    if (text.length <= 2 * PIECE) return count(text);
    let total = 0;
    for (let at = 0; at < text.length;) {
      let end = Math.min(text.length, at + PIECE);
      if (end < text.length) {
        const space = text.lastIndexOf(' ', end);
        if (space > at + PIECE / 2) end = space;
      }
      total += count(text.slice(at, end));
      at = end;
    }
    return total;
  };
}
