/**
 * Hash routing (`#/usage`, `#/runs/<id>`): the server serves one page, so the route lives in the hash.
 * A hash that does not start with `#/` (the skip link's `#main`) is not a route and changes nothing.
 */
import { useEffect, useState } from 'preact/hooks';

/** The page (`''` for the overview) and what follows it (`runs/abc` → `abc`). */
export interface Route {
  page: string;
  param: string | null;
}

/** The route of a hash. */
export function parseHash(hash: string): Route | null {
  if (!hash.startsWith('#/')) return null;
  const path = hash.slice(2).split('?')[0] ?? '';
  const [page = '', ...rest] = path.split('/');
  const param = rest.length > 0 ? decodeURIComponent(rest.join('/')) : null;
  return { page, param: param || null };
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseHash(location.hash) ?? { page: '', param: null });
  useEffect(() => {
    const onChange = () => {
      const next = parseHash(location.hash);
      if (next) setRoute(next);
    };
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** The hash of a page (and item): `href` of links, and where `navigate` goes. */
export function hrefOf(page: string, param?: string | null): string {
  return `#/${page}${param ? `/${encodeURIComponent(param)}` : ''}`;
}

/** Goes to a page. */
export function navigate(page: string, param?: string | null): void {
  location.hash = hrefOf(page, param);
}
