/**
 * Sign-in: a key pasted once (a password field), exchanged for an HttpOnly session cookie; the key is
 * dropped from memory as soon as the server answers. With Trawl's OAuth server on, a link signs in there.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../lib/api';
import { signIn, type SignedIn } from '../lib/session';
import { ErrorNote } from '../components/ui';
import { TextField } from '../components/fields';

export function SignInPage(props: { oauth: boolean; onSignedIn: (session: SignedIn) => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key.trim());
      setKey('');
      props.onSignedIn(session);
    } catch (err) {
      setKey('');
      setError(
        err instanceof ApiError && err.status === 401
          ? new Error('That key was not accepted: check it and try again.')
          : err,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="signin-wrap">
      <header class="signin-brand">
        <span class="brand">
          Trawl <span>console</span>
        </span>
      </header>
      <main id="main" class="signin" data-page="signin">
        <h1>Sign in</h1>
        <p class="lead">Paste an API key. It is exchanged for a session and not kept by this page.</p>
        <form onSubmit={(e) => void submit(e)} class="stack" data-testid="signin-form">
          <TextField
            label="API key"
            type="password"
            value={key}
            onValue={setKey}
            required
            autocomplete="off"
            placeholder="trawl_…"
            hint="Create one with: trawl keys create --name NAME"
            testid="signin-key"
          />
          <button type="submit" disabled={busy || key.trim() === ''} data-testid="signin-submit">
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <ErrorNote error={error} testid="signin-error" />
        {props.oauth && (
          <p class="oauth">
            <span class="muted">or</span>{' '}
            <a class="button secondary" href="/console/oauth/start" data-testid="signin-oauth">
              Sign in with Trawl
            </a>
          </p>
        )}
      </main>
    </div>
  );
}
