/** One answer pager per app: its snapshots in the app's store. */
import type { App } from '../../compose/app.js';
import { createAnswerPager, type AnswerPager } from './pager.js';

const pagers = new WeakMap<App, AnswerPager>();

/** The app's pager (made on first use, then shared by every server built on the app). */
export function pagerFor(app: App): AnswerPager {
  let pager = pagers.get(app);
  if (!pager) {
    pager = createAnswerPager(app.stores.mcpSnapshots, () => app.clock.now().getTime());
    pagers.set(app, pager);
  }
  return pager;
}
