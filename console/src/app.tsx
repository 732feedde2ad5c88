/**
 * The app: the session (loaded once, ended by sign-out or by any 401), the sign-in screen, and the
 * shell (skip link, header, sidebar nav, main region) around the page of the current hash route.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { onSessionEnded } from './lib/api';
import { hrefOf, useRoute } from './lib/router';
import { loadSession, signOut, type Session, type SignedIn } from './lib/session';
import { ErrorNote, Loading, markNavigation, PageHeader } from './components/ui';
import { mayOpen, PAGES } from './pages';
import { SignInPage } from './pages/signin';

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<unknown>(null);
  const route = useRoute();
  // where to go back to after signing in (the page that found the session ended)
  const returnTo = useRef<string | null>(null);
  // a sign-out by hand starts again from the overview; a session that ended returns to its page
  const signedOutByHand = useRef(false);

  useEffect(() => {
    onSessionEnded(() => setSession((s) => (s && s.signedIn ? { signedIn: false, oauth: s.oauth } : s)));
    loadSession().then(setSession, setError);
  }, []);

  useEffect(() => {
    if (!session?.signedIn) return;
    // when the session is due to end, ask the server (a session it renewed carries on)
    const left = Date.parse(session.expiresAt) - Date.now();
    if (!(left < 2 ** 31 - 1)) return;
    const timer = window.setTimeout(() => loadSession().then(setSession, setError), Math.max(0, left) + 1000);
    return () => clearTimeout(timer);
  }, [session]);

  useEffect(() => {
    if (session && !session.signedIn && route.page !== 'signin') {
      returnTo.current = signedOutByHand.current ? null : location.hash;
      signedOutByHand.current = false;
      location.replace('#/signin');
    }
  }, [session, route.page]);

  if (!session) {
    return (
      <main id="main" class="boot" data-page="loading">
        {error ? <ErrorNote error={error} /> : <Loading what="the console" />}
      </main>
    );
  }
  if (!session.signedIn) {
    const signedIn = (s: SignedIn) => {
      setSession(s);
      const back = returnTo.current;
      returnTo.current = null;
      location.replace(back && back !== '#/signin' ? back : '#/');
    };
    return <SignInPage oauth={session.oauth} onSignedIn={signedIn} />;
  }
  const signedOut = () => {
    signedOutByHand.current = true;
    setSession({ signedIn: false, oauth: session.oauth });
  };
  return <Shell session={session} onSignedOut={signedOut} />;
}

function Shell(props: { session: SignedIn; onSignedOut: () => void }) {
  const { session } = props;
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const [signOutError, setSignOutError] = useState<unknown>(null);
  const visible = PAGES.filter((p) => mayOpen(p, session));
  const page = PAGES.find((p) => p.route === route.page);
  const allowed = page && mayOpen(page, session);

  useEffect(() => {
    if (route.page === 'signin') location.replace('#/');
  }, [route.page]);

  const leave = async () => {
    try {
      await signOut();
      props.onSignedOut();
    } catch (e) {
      setSignOutError(e);
    }
  };
  const skip = (e: Event) => {
    // the hash is the route: move the focus instead of following `#main`
    e.preventDefault();
    main.current?.focus();
  };

  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={skip}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/">
          Trawl <span>console</span>
        </a>
        <div class="who" data-testid="whoami">
          <span data-testid="key-name">{session.key.name}</span>
          <span class="muted"> · team </span>
          <span data-testid="team-name">{session.team.name}</span>
        </div>
        <button type="button" class="secondary small" onClick={() => void leave()} data-testid="sign-out">
          Sign out
        </button>
      </header>
      <nav class="sidebar" aria-label="Console pages">
        <ul>
          {visible.map((p) => (
            <li key={p.route}>
              <a
                href={hrefOf(p.route)}
                aria-current={p.route === route.page ? 'page' : undefined}
                data-testid={`nav-${p.dataPage}`}
                onClick={markNavigation}
              >
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1} data-page={allowed ? page.dataPage : page ? 'forbidden' : 'not-found'}>
        <ErrorNote error={signOutError} />
        {allowed ? (
          <page.component session={session} param={route.param} />
        ) : (
          <Unavailable known={Boolean(page)} scopes={page?.anyOf ?? []} />
        )}
      </main>
    </div>
  );
}

function Unavailable(props: { known: boolean; scopes: readonly string[] }) {
  return (
    <>
      <PageHeader title={props.known ? 'Not available to this key' : 'Page not found'}>
        {props.known
          ? `This page needs a key with the ${props.scopes.join(' or ')} scope.`
          : 'There is no page at this address.'}
      </PageHeader>
      <p>
        <a href="#/">Back to the overview</a>
      </p>
    </>
  );
}
