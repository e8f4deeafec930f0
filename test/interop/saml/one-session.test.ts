import { DEMO_SLO, nodeSamlDemoSp } from '../../support/node-saml.ts';
import { describe, expect, it } from 'vitest';
import { readForm, SamlBrowser, useSamlPeerServer } from '../../support/saml.ts';

// Issue 49: "The sign-in is the demo users' login page of the OpenID Provider, one session for both."
// A browser signs in at either, and the other answers from that session; logout at the OP reaches the SAML
// SPs of the session. @node-saml/node-saml plays the demo SP.
const peer = useSamlPeerServer();
const SLO = DEMO_SLO;

const demoSp = () => nodeSamlDemoSp(peer, 'demo-sp');

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const authorizeUrl = (params: Record<string, string> = {}) =>
  `${peer.server.url}/oidc/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-app',
    redirect_uri: `${peer.server.url}/callback`,
    scope: 'openid',
    state: 'st',
    ...params,
  })}`;

/** The OpenID Provider's authorization: which page it shows (login or consent), or where it sent the browser back. */
async function oidcStep(browser: SamlBrowser, params: Record<string, string> = {}) {
  const res = await browser.fetch(authorizeUrl(params));
  const location = new URL(res.headers.get('location')!, peer.server.url);
  if (!location.pathname.includes('/interaction/')) return { back: Object.fromEntries(location.searchParams) };
  const page = await (await browser.fetch(location.href)).text();
  return { interaction: location.href, step: page.includes('name="password"') ? 'login' : 'consent' };
}

describe('one sign-in session for the OpenID Provider and the SAML IdP', () => {
  it('a login at the OpenID Provider answers a SAML AuthnRequest without a new login; the assertion’s AuthnInstant is that login', async () => {
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const start = await oidcStep(browser);
    expect(start.step).toBe('login');
    const loginAt = new Date(peer.server.clock.now()).toISOString().slice(0, 19);
    await browser.fetch(`${start.interaction}/login`, form({ username: 'alice', password: 'alice-demo-password' }));
    await browser.fetch(`${start.interaction}/consent`, form({ decision: 'approve' }));

    const sp = demoSp();
    const answered = await browser.fetch(await sp.getAuthorizeUrlAsync('', undefined, {}));
    expect(answered.status, 'no redirect to the SAML login page').toBe(200);
    const { fields } = readForm(await answered.text());
    const xml = Buffer.from(fields.SAMLResponse, 'base64').toString();
    expect(xml).toContain(`AuthnInstant="${loginAt}`);
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: fields.SAMLResponse });
    expect(profile?.email ?? profile?.nameID).toContain('alice');
  });

  it('a login at the SAML IdP lets the OpenID Provider skip its login page', async () => {
    const browser = new SamlBrowser(peer.server.url, 'bob');
    const sp = demoSp();
    await browser.responseForm(await browser.sso({ url: await sp.getAuthorizeUrlAsync('', undefined, {}) }));
    expect(browser.cookie).toMatch(/^portico_session=/);
    expect((await oidcStep(browser)).step).toBe('consent');
    // The same person, whichever page they signed in on.
    const sessions = await peer.server.main.ctx.log.streamIds('sign-in-session:');
    expect(sessions.length).toBeGreaterThan(0);
  });

  it('[oidc-rpinitiated-002] RP-initiated logout at the OpenID Provider tells the SAML SP of the session (a signed LogoutRequest), then returns to post_logout_redirect_uri', async () => {
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const sp = demoSp();
    const form1 = await browser.responseForm(
      await browser.sso({ url: await sp.getAuthorizeUrlAsync('', undefined, {}) }),
    );
    const nameId = (await sp.validatePostResponseAsync({ SAMLResponse: form1.fields.SAMLResponse })).profile!.nameID;
    const start = await oidcStep(browser);
    expect(start.step).toBe('consent');
    await browser.fetch(`${start.interaction}/consent`, form({ decision: 'approve' }));

    const out = await browser.fetch(
      `${peer.server.url}/oidc/logout?${new URLSearchParams({ client_id: 'demo-app', post_logout_redirect_uri: `${peer.server.url}/`, state: 'bye' })}`,
    );
    expect(out.status).toBe(303);
    const toSp = out.headers.get('location')!;
    expect(toSp.startsWith(`${SLO}?SAMLRequest=`)).toBe(true);
    const raw = toSp.slice(toSp.indexOf('?') + 1);
    const request = await sp.validateRedirectAsync(Object.fromEntries(new URLSearchParams(raw)), raw);
    expect(request.loggedOut).toBe(true);
    expect(request.profile?.nameID).toBe(nameId);

    const back = await browser.fetch(await sp.getLogoutResponseUrlAsync(request.profile!, '', {}, true));
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`${peer.server.url}/?state=bye`);
    expect(back.headers.get('set-cookie')).toContain('Max-Age=0');

    // Signed out at both: the OP asks for a login, and so does the IdP.
    expect((await oidcStep(browser, { prompt: 'none' })).back?.error).toBe('login_required');
    const again = await browser.fetch(await sp.getAuthorizeUrlAsync('', undefined, {}));
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toContain('/saml/idp/login/');
  });
});
