/**
 * Token counts as the caller's model sees them: gpt-tokenizer's `o200k_base` encoding (GPT-4o and
 * later; within a few percent of other modern tokenizers on text and code), loaded on first use so
 * start-up and the calls that count nothing do not pay for its tables.
 */

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

let counter: Promise<TokenCounter> | undefined;

/** The token counter (loaded once per process). */
export function tokenCounter(): Promise<TokenCounter> {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => (text: string) => m.countTokens(text));
  return counter;
}
