/**
 * The console's pages: route, title, who may see each (from the session key's scopes) and the
 * component. The nav, the router and the access check all read this one list: to add a page, add it here.
 */
import type { FunctionComponent } from 'preact';
import { hasScope, type Scope, type SignedIn } from './lib/session';
import { OverviewPage } from './pages/overview';
import { PlaygroundPage } from './pages/playground';
import { IndexPage } from './pages/index-page';
import { KeysPage } from './pages/keys';
import { UsagePage } from './pages/usage';
import { MonitorsPage } from './pages/monitors';
import { RunsPage } from './pages/runs';

/** What every page component receives. */
export interface PageProps {
  session: SignedIn;
  /** What follows the page in the hash (`#/runs/<id>` → the run id), if anything. */
  param: string | null;
}

export interface PageEntry {
  /** The hash route (`#/usage`), `''` for the overview; also `data-page` unless `dataPage` says else. */
  route: string;
  dataPage: string;
  title: string;
  /** Scopes of which the key needs one. */
  anyOf: readonly Scope[] | null;
  component: FunctionComponent<PageProps>;
}

export const PAGES: readonly PageEntry[] = [
  { route: '', dataPage: 'overview', title: 'Overview', anyOf: null, component: OverviewPage },
  {
    route: 'playground',
    dataPage: 'playground',
    title: 'Playground',
    anyOf: ['search', 'contents', 'context'],
    component: PlaygroundPage,
  },
  { route: 'index', dataPage: 'index', title: 'Index', anyOf: ['admin'], component: IndexPage },
  { route: 'keys', dataPage: 'keys', title: 'Keys and teams', anyOf: ['admin:team'], component: KeysPage },
  { route: 'usage', dataPage: 'usage', title: 'Usage', anyOf: ['admin:team'], component: UsagePage },
  { route: 'monitors', dataPage: 'monitors', title: 'Monitors', anyOf: ['monitors'], component: MonitorsPage },
  { route: 'runs', dataPage: 'runs', title: 'Agent runs', anyOf: ['agent'], component: RunsPage },
];

/** Whether the session's key may see a page. */
export function mayOpen(page: PageEntry, session: SignedIn): boolean {
  return page.anyOf === null || page.anyOf.some((scope) => hasScope(session.key.scopes, scope));
}
