import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { SamlBrowser } from '../../support/saml.ts';

// Issue 49 ("one session for both"): the OpenID Provider keeps the browser's sign-in session and answers
// from it as OIDC Core §3.1.2.1 says: prompt=none, prompt=login, max_age, id_token_hint and auth_time.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const authorizeUrl = (params: Record<string, string> = {}, issuer = 'oidc') =>
  `${server.url}/${issuer}/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-app',
    redirect_uri: `${server.url}/callback`,
    scope: issuer === 'oidc' ? 'openid email' : 'email',
    state: 'st',
    ...params,
  })}`;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Where the authorization endpoint sent the browser: the page it showed, or the redirect back with its parameters. */
async function authorize(browser: SamlBrowser, params: Record<string, string> = {}, issuer = 'oidc') {
  const res = await browser.fetch(authorizeUrl(params, issuer));
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!, server.url);
  if (!location.pathname.includes('/interaction/'))
    return { back: Object.fromEntries(location.searchParams), interaction: undefined };
  const page = await (await browser.fetch(location.href)).text();
  return { interaction: location.href, step: page.includes('name="password"') ? 'login' : 'consent', back: undefined };
}

/** Signs in on the login page when shown, approves, and answers the code that came back. */
async function signIn(browser: SamlBrowser, params: Record<string, string> = {}, user = browser.user) {
  const started = await authorize(browser, params);
  const steps: string[] = [];
  if (started.step === 'login') {
    steps.push('login');
    const login = await browser.fetch(
      `${started.interaction}/login`,
      form({ username: user, password: `${user}-demo-password` }),
    );
    expect(login.status).toBe(303);
  }
  steps.push('consent');
  const consent = await browser.fetch(`${started.interaction}/consent`, form({ decision: 'approve' }));
  expect(consent.status).toBe(303);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  return { code, steps };
}

async function idToken(code: string) {
  const res = await fetch(`${server.url}/oidc/token`, {
    ...form({ grant_type: 'authorization_code', code, redirect_uri: `${server.url}/callback` }),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('demo-app:demo-app-secret').toString('base64')}`,
    },
  });
  const body = (await res.json()) as { id_token: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { raw: body.id_token, claims: decodeJwt(body.id_token) };
}

describe('the OpenID Provider’s sign-in session', () => {
  it('[oidc-core-018] a login starts the session (its cookie for the whole origin); the next request skips the login page, and its ID token keeps the first auth_time', async () => {
    const browser = new SamlBrowser(server.url, 'alice');
    const first = await authorize(browser);
    expect(first.step).toBe('login');
    const login = await browser.fetch(
      `${first.interaction}/login`,
      form({ username: 'alice', password: 'alice-demo-password' }),
    );
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^portico_session=[A-Za-z0-9_-]{32,}; Path=\/; HttpOnly; SameSite=None; Secure$/);
    const loggedInAt = Math.floor(server.clock.now() / 1000);
    await browser.fetch(`${first.interaction}/consent`, form({ decision: 'approve' }));

    server.clock.advance(60_000);
    const again = await signIn(browser);
    expect(again.steps).toEqual(['consent']);
    const { claims } = await idToken(again.code);
    expect(claims.sub).toBe('alice');
    expect(claims.auth_time).toBe(loggedInAt);

    // The session lives in the log under the cookie's hash; the cookie itself is nowhere in it.
    const events = JSON.stringify(await server.main.ctx.log.readAll(0, 100_000));
    expect(events).toContain('"session.started"');
    expect(events).not.toContain(browser.cookie!.split('=')[1]);
  });

  it('[oidc-core-019] prompt=none: login_required without a session, consent_required before the client was allowed, a code without any page after', async () => {
    const stranger = new SamlBrowser(server.url, 'bob');
    expect((await authorize(stranger, { prompt: 'none' })).back).toMatchObject({
      error: 'login_required',
      state: 'st',
    });
    const browser = new SamlBrowser(server.url, 'bob');
    await signIn(browser, { client_id: 'demo-app', scope: 'openid' });
    // Allowed openid only: asking for email as well needs a consent page, which prompt=none forbids.
    expect((await authorize(browser, { prompt: 'none' })).back).toMatchObject({
      error: 'consent_required',
      state: 'st',
      iss: server.url,
    });
    await signIn(browser);
    const silent = await authorize(browser, { prompt: 'none', nonce: 'n-silent' });
    expect(silent.interaction).toBeUndefined();
    expect(silent.back?.code).toBeTruthy();
    const { claims } = await idToken(silent.back!.code);
    expect(claims).toMatchObject({ sub: 'bob', nonce: 'n-silent' });
    // Another client was never allowed anything in this session.
    expect((await authorize(browser, { prompt: 'none', client_id: 'demo-app-post' })).back?.error).toBe(
      'consent_required',
    );
  });

  it('[oidc-core-020] max_age older than the login, prompt=login and prompt=select_account show the login page; prompt=none with an old session is login_required', async () => {
    const browser = new SamlBrowser(server.url, 'alice');
    await signIn(browser);
    server.clock.advance(120_000);
    expect((await authorize(browser, { max_age: '60' })).step).toBe('login');
    expect((await authorize(browser, { max_age: '600' })).step).toBe('consent');
    expect((await authorize(browser, { prompt: 'login' })).step).toBe('login');
    expect((await authorize(browser, { prompt: 'select_account' })).step).toBe('login');
    expect((await authorize(browser, { prompt: 'none', max_age: '60' })).back?.error).toBe('login_required');

    // A new login renews the same session (no new cookie) and moves auth_time.
    const cookie = browser.cookie;
    const renewed = await signIn(browser, { max_age: '0' });
    expect(renewed.steps).toEqual(['login', 'consent']);
    expect(browser.cookie).toBe(cookie);
    expect((await idToken(renewed.code)).claims.auth_time).toBe(Math.floor(server.clock.now() / 1000));
  });

  it('[oidc-core-021] id_token_hint naming someone else makes the session unusable; a hint not from this provider is login_required', async () => {
    const bob = new SamlBrowser(server.url, 'bob');
    const bobsToken = (await idToken((await signIn(bob)).code)).raw;
    const alice = new SamlBrowser(server.url, 'alice');
    const alicesToken = (await idToken((await signIn(alice)).code)).raw;
    expect((await authorize(alice, { prompt: 'none', id_token_hint: bobsToken })).back?.error).toBe('login_required');
    expect((await authorize(alice, { id_token_hint: bobsToken })).step).toBe('login');
    expect((await authorize(alice, { prompt: 'none', id_token_hint: alicesToken })).back?.code).toBeTruthy();
    const forged = `${alicesToken.slice(0, -4)}AAAA`;
    expect((await authorize(alice, { prompt: 'none', id_token_hint: forged })).back?.error).toBe('login_required');
  });

  it('refuses prompt=none with another value and a max_age that is not a number of seconds (invalid_request)', async () => {
    const browser = new SamlBrowser(server.url, 'alice');
    await signIn(browser);
    expect((await authorize(browser, { prompt: 'none login' })).back?.error).toBe('invalid_request');
    expect((await authorize(browser, { max_age: '-1' })).back?.error).toBe('invalid_request');
    expect((await authorize(browser, { max_age: 'soon' })).back?.error).toBe('invalid_request');
  });

  it('the plain authorization server at /oauth2 keeps no session: its login page every time, prompt=none is login_required', async () => {
    const browser = new SamlBrowser(server.url, 'alice');
    await signIn(browser);
    expect((await authorize(browser, {}, 'oauth2')).step).toBe('login');
    expect((await authorize(browser, { prompt: 'none' }, 'oauth2')).back?.error).toBe('login_required');
  });

  it('[oidc-rpinitiated-001] RP-initiated logout ends the session: the cookie is cleared and prompt=none is login_required again', async () => {
    const browser = new SamlBrowser(server.url, 'alice');
    await signIn(browser);
    expect((await authorize(browser, { prompt: 'none' })).back?.code).toBeTruthy();
    const cookie = browser.cookie!;
    const out = await browser.fetch(
      `${server.url}/oidc/logout?${new URLSearchParams({ client_id: 'demo-app', post_logout_redirect_uri: `${server.url}/`, state: 'bye' })}`,
    );
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe(`${server.url}/?state=bye`);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    // Even the old cookie no longer names a session.
    const stale = new SamlBrowser(server.url, 'alice');
    stale.cookie = cookie;
    expect((await authorize(stale, { prompt: 'none' })).back?.error).toBe('login_required');
  });
});
