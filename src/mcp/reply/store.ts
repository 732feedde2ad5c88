/** One answer pager per app: over the app's answer snapshots (a core service). */
import type { AnswerSnapshots } from '../../core/snapshots/answer-snapshots.js';
import { createAnswerPager, type AnswerPager } from './pager.js';

const pagers = new WeakMap<AnswerSnapshots, AnswerPager>();

/** The app's pager (made on first use, then shared by every server built on the app). */
export function pagerFor(app: { answerSnapshots: AnswerSnapshots }): AnswerPager {
  let pager = pagers.get(app.answerSnapshots);
  if (!pager) {
    pager = createAnswerPager(app.answerSnapshots);
    pagers.set(app.answerSnapshots, pager);
  }
  return pager;
}
