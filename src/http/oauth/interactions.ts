/**
 * The sign-in and consent steps of an authorization (oidc-provider's interactions), served by the door:
 * GET shows the step's page, POST …/login checks a pasted API key (rate-limited per client address and
 * per key prefix), POST …/consent records the grant (the requested scopes the key holds) or the refusal.
 * Both forms carry a CSRF token bound to the interaction; the interaction itself is found by its
 * SameSite=Lax cookie, so a page elsewhere cannot drive it.
 */
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type Provider from 'oidc-provider';
import type { OAuthService } from '../../core/oauth/oauth.service.js';
import type { HttpEnv } from '../env.js';
import { nodeObjects } from './bridge.js';
import { consentPage, errorPage, PAGE_HEADERS, signInPage } from './pages.js';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The sign-in and consent forms are a few hundred bytes; anything much larger is refused unread. */
const FORM_MAX_BYTES = 16 * 1024;

const html = (c: Context<HttpEnv>, body: string, status: 200 | 400 | 401 | 403 | 413 | 429 = 200, extra: Record<string, string> = {}) =>
  c.body(body, status, { ...PAGE_HEADERS, ...extra }); // prettier-ignore

const expired = (c: Context<HttpEnv>) =>
  html(c, errorPage('Sign-in expired', 'This sign-in is no longer open. Start again from your application.'), 400);

/** The interaction of the request, when its cookie names the uid of the path; undefined otherwise. */
async function interactionOf(c: Context<HttpEnv>, provider: Provider): Promise<Interaction | undefined> {
  const { req, res } = nodeObjects(c);
  try {
    const details = await provider.interactionDetails(req, res);
    return details.uid === c.req.param('uid') ? details : undefined;
  } catch {
    return undefined;
  }
}

async function clientNameOf(
  provider: Provider,
  clientId: string,
): Promise<{ name: string; redirectHost: (uri: string) => string }> {
  const client = await provider.Client.find(clientId).catch(() => undefined);
  const name = typeof client?.clientName === 'string' && client.clientName.trim() ? client.clientName : clientId;
  return { name, redirectHost: (uri) => (URL.canParse(uri) ? new URL(uri).host : uri) };
}

const paramOf = (details: Interaction, name: string) => {
  const value = details.params[name];
  return typeof value === 'string' ? value : '';
};

export interface InteractionDeps {
  oauth: OAuthService;
  providerOf(c: Context<HttpEnv>): Promise<Provider>;
  /** "Sign in with your organisation" is offered (TRAWL_OIDC_ISSUER). */
  federated: boolean;
}

export function mountInteractions(hono: Hono<HttpEnv>, deps: InteractionDeps): void {
  const { oauth } = deps;
  hono.use(
    '/oauth/interaction/*',
    bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => html(c, errorPage('Request refused', 'The form is too large.'), 413) }), // prettier-ignore
  );

  /** The page of the step the interaction is at: sign-in, or consent for the signed-in key. */
  const stepPage = async (c: Context<HttpEnv>, provider: Provider, details: Interaction, error?: string) => {
    const csrf = await oauth.csrfToken(details.uid);
    const client = await clientNameOf(provider, paramOf(details, 'client_id'));
    const accountId = details.session?.accountId;
    if (details.prompt.name === 'login' || !accountId) {
      return html(c, signInPage({ uid: details.uid, csrf, clientName: client.name, error, federated: deps.federated }), error ? 401 : 200); // prettier-ignore
    }
    const caller = await oauth.account(accountId);
    if (!caller) return expired(c);
    const requested = paramOf(details, 'scope').split(' ').filter(Boolean);
    return html(
      c,
      consentPage({
        uid: details.uid,
        csrf,
        clientName: client.name,
        redirectHost: client.redirectHost(paramOf(details, 'redirect_uri')),
        keyName: caller.keyName,
        scopes: oauth.grantable(requested, caller),
      }),
    );
  };

  /** The interaction of a POST whose CSRF token is right, or the page that refuses it. */
  const checkedPost = async (c: Context<HttpEnv>) => {
    const provider = await deps.providerOf(c);
    const details = await interactionOf(c, provider);
    if (!details) return { refusal: expired(c) };
    const form = await c.req.parseBody();
    if (!(await oauth.checkCsrf(details.uid, form.csrf))) {
      return { refusal: html(c, errorPage('Request refused', 'The form was not sent from this sign-in page. Start again from your application.'), 403) }; // prettier-ignore
    }
    return { provider, details, form };
  };

  /** Ends the interaction with `result` and sends the browser back to the authorization. */
  const finish = async (c: Context<HttpEnv>, provider: Provider, result: Record<string, unknown>) => {
    const { req, res } = nodeObjects(c);
    const returnTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
    return c.redirect(returnTo, 303);
  };

  hono.get('/oauth/interaction/:uid', async (c) => {
    const provider = await deps.providerOf(c);
    const details = await interactionOf(c, provider);
    return details ? stepPage(c, provider, details) : expired(c);
  });

  hono.post('/oauth/interaction/:uid/login', async (c) => {
    const checked = await checkedPost(c);
    if ('refusal' in checked) return checked.refusal;
    const { provider, details, form } = checked;
    const key = typeof form.key === 'string' ? form.key : '';
    const address = nodeObjects(c).req.socket.remoteAddress ?? 'unknown';
    const outcome = await oauth.signIn(key, address);
    if (!outcome.ok && outcome.reason === 'limited') {
      const wait = String(outcome.retryAfterSeconds);
      return html(c, errorPage('Too many attempts', `Too many sign-in attempts. Try again in ${wait} seconds.`), 429, { 'retry-after': wait }); // prettier-ignore
    }
    if (!outcome.ok && outcome.reason === 'blocked') {
      return html(c, errorPage('Team blocked', `The team "${outcome.team}" of this key is blocked; ask your administrator.`), 403); // prettier-ignore
    }
    if (!outcome.ok) return stepPage(c, provider, details, 'That is not an active API key. Paste a key of your team (trawl_…).'); // prettier-ignore
    return finish(c, provider, { login: { accountId: outcome.caller.keyId, remember: false } });
  });

  hono.post('/oauth/interaction/:uid/consent', async (c) => {
    const checked = await checkedPost(c);
    if ('refusal' in checked) return checked.refusal;
    const { provider, details, form } = checked;
    const accountId = details.session?.accountId;
    const caller = accountId ? await oauth.account(accountId) : null;
    if (!caller || details.prompt.name !== 'consent') return expired(c);
    if (form.decision !== 'allow') {
      return finish(c, provider, { error: 'access_denied', error_description: 'the person declined access' });
    }
    const clientId = paramOf(details, 'client_id');
    const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId }); // prettier-ignore
    const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
    for (const [resource, scopes] of Object.entries(missing)) {
      const granted = oauth.grantable(scopes, caller).filter((s) => scopes.includes(s));
      if (granted.length) grant.addResourceScope(resource, granted.join(' '));
      const refused = scopes.filter((s) => !granted.includes(s as never));
      if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
    }
    const oidcScopes = (details.prompt.details.missingOIDCScope ?? []) as string[];
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const grantId = await grant.save();
    return finish(c, provider, { consent: { grantId } });
  });
}
