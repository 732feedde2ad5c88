/**
 * Document categories for `/search`'s `category` filter: weighted evidence from schema.org types, Open
 * Graph, URL and site patterns and content cues (category-rules.ts), summed per category. Pure.
 */
import { CATEGORIES, CATEGORY_RULES, type DocumentCategory } from './category-rules.js';
import { signalsOf, type ClassifiableDocument, type Signals } from './signals.js';

export { CATEGORIES, type DocumentCategory };

/** The score a category's evidence must reach for the document to get it. */
export const CATEGORY_THRESHOLD = 1;

/** One assigned category: the evidence's summed weight and what it was. */
export interface CategoryVerdict {
  category: DocumentCategory;
  score: number;
  reasons: string[];
}

/** Every category's fired evidence, assigned or not (for debugging the rules). */
export function categoryEvidence(s: Signals): CategoryVerdict[] {
  const verdicts = new Map<DocumentCategory, CategoryVerdict>();
  for (const category of CATEGORIES) verdicts.set(category, { category, score: 0, reasons: [] });
  for (const rule of CATEGORY_RULES) {
    const reason = rule.test(s);
    if (!reason) continue;
    const v = verdicts.get(rule.category)!;
    v.score = Math.round((v.score + rule.weight) * 100) / 100;
    v.reasons.push(reason);
  }
  return [...verdicts.values()];
}

// Per rule: the weight its category's later rules can still add (with a margin for the rounding of scores).
const WEIGHT_AFTER = CATEGORY_RULES.map(
  (rule, i) =>
    CATEGORY_RULES.slice(i + 1)
      .filter((r) => r.category === rule.category)
      .reduce((sum, r) => sum + r.weight, 0) + 0.001,
);

/**
 * The assigned categories (score at least `CATEGORY_THRESHOLD`), each with its reasons: what
 * `categoryEvidence` gives, filtered, without testing a rule whose category can no longer reach the
 * threshold (the text rules are most of classification's cost, and most documents fire no rule).
 */
export function assignedCategories(s: Signals): CategoryVerdict[] {
  const verdicts = new Map<DocumentCategory, CategoryVerdict>();
  for (const category of CATEGORIES) verdicts.set(category, { category, score: 0, reasons: [] });
  CATEGORY_RULES.forEach((rule, i) => {
    const v = verdicts.get(rule.category)!;
    if (v.score + rule.weight + WEIGHT_AFTER[i]! < CATEGORY_THRESHOLD) return;
    const reason = rule.test(s);
    if (!reason) return;
    v.score = Math.round((v.score + rule.weight) * 100) / 100;
    v.reasons.push(reason);
  });
  return [...verdicts.values()].filter((v) => v.score >= CATEGORY_THRESHOLD);
}

/** The categories a document belongs to (zero or more, in the spec's order), each with its reasons. */
export function classifyCategories(doc: ClassifiableDocument): CategoryVerdict[] {
  return assignedCategories(signalsOf(doc));
}
