/** Small hooks the pages share: a load with its state, a paged list, a repeating poll. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, withCursor, type Page } from './api.js';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change; an answer that arrives after a newer load is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (error: unknown) => mine === generation.current && setState({ data: null, error, loading: false }),
    );
    // the caller's deps decide when to load again (as useEffect's do)
  }, deps);
  useEffect(() => {
    run();
    return () => void ++generation.current;
  }, [run]);
  return { ...state, reload: run };
}

export interface Paged<T> extends Loaded<Page<T>> {
  /** Whether this is the first page (no cursor). */
  first: boolean;
  next: () => void;
  restart: () => void;
}

/** A list route read page by page with `?cursor=` (`Next page`, and back to the first). */
export function usePaged<T>(path: string | null): Paged<T> {
  const [cursor, setCursor] = useState<string | null>(null);
  useEffect(() => setCursor(null), [path]);
  const loaded = useLoad<Page<T>>(
    () =>
      path ? api<Page<T>>(withCursor(path, cursor)) : Promise.resolve({ data: [], hasMore: false, nextCursor: null }),
    [path, cursor],
  );
  return {
    ...loaded,
    first: cursor === null,
    next: () => loaded.data?.nextCursor && setCursor(loaded.data.nextCursor),
    restart: () => (cursor === null ? loaded.reload() : setCursor(null)),
  };
}

/** Calls `tick` every `ms` while `active`, one call at a time (a slow answer is not overtaken). */
export function usePoll(tick: () => Promise<unknown>, ms: number, active: boolean): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    let timer = 0;
    const loop = async () => {
      await latest.current().catch(() => undefined);
      if (!stopped) timer = window.setTimeout(() => void loop(), ms);
    };
    timer = window.setTimeout(() => void loop(), ms);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [active, ms]);
}
