/**
 * The classifiers' one entry point for the search indexer: a stored document → its categories, its
 * moderation verdict and its entities. Pure; run at indexing time (documents change only when re-fetched).
 */
import { assignedCategories, type DocumentCategory } from './category.js';
import { companyEntity, type CompanyEntity } from './entities.js';
import { moderationOf } from './moderation.js';
import { signalsOf, type ClassifiableDocument } from './signals.js';

export {
  assignedCategories,
  CATEGORIES,
  CATEGORY_THRESHOLD,
  categoryEvidence,
  classifyCategories,
  type CategoryVerdict,
  type DocumentCategory,
} from './category.js';
export { companyEntity, type CompanyEntity } from './entities.js';
export { classifyModeration, moderationScores, type GroupScore, type ModerationVerdict } from './moderation.js';
export { signalsOf, type ClassifiableDocument, type Signals } from './signals.js';

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname.replace(/^www\./, '') : '');

/** What the search index keeps per document. */
export interface DocumentClassification {
  /** Assigned categories, in the spec's order. */
  categories: DocumentCategory[];
  /** The evidence behind each assigned category. */
  categoryReasons: Partial<Record<DocumentCategory, string[]>>;
  /** True when `/search` with `moderation: true` must leave the document out. */
  unsafe: boolean;
  /** Why it is unsafe (empty when safe). */
  moderationReasons: string[];
  /** Company entities (documents in the `company` category that carry organisation data). */
  entities: CompanyEntity[];
}

/** Classifies a stored document (a `DocumentRecord` fits): categories, moderation and entities. */
export function classifyDocument(doc: ClassifiableDocument): DocumentClassification {
  const s = signalsOf(doc);
  const assigned = assignedCategories(s);
  const categoryReasons: DocumentClassification['categoryReasons'] = {};
  for (const v of assigned) categoryReasons[v.category] = v.reasons;
  const moderation = moderationOf(s);
  const org = s.evidence.organization;
  const entities: CompanyEntity[] = [];
  if (org && assigned.some((v) => v.category === 'company')) {
    // the page's own description describes the organisation only when the page is the organisation's
    const own = org.subject || (org.url !== undefined && hostOf(org.url) === s.host);
    const description = typeof doc.metadata.description === 'string' ? doc.metadata.description : undefined;
    entities.push(companyEntity(org, doc.url, own ? description : undefined));
  }
  return {
    categories: assigned.map((v) => v.category),
    categoryReasons,
    unsafe: moderation.unsafe,
    moderationReasons: moderation.reasons,
    entities,
  };
}
