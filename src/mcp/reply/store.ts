/** One answer pager per app: over the app's answer snapshots (a core service). */
import type { Services } from '../../core/ports.js';
import { createAnswerPager, type AnswerPager } from './pager.js';

const pagers = new WeakMap<Services, AnswerPager>();

/** The app's pager (made on first use, then shared by every server built on the app). */
export function pagerFor(app: { services: Services }): AnswerPager {
  let pager = pagers.get(app.services);
  if (!pager) {
    pager = createAnswerPager(app.services.answerSnapshots);
    pagers.set(app.services, pager);
  }
  return pager;
}
